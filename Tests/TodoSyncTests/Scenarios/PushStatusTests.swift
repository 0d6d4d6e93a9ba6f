import Testing
import TodoModel
import TodoServer
import TodoTestSupport

/// sync.md §4.7, the rows of "outcome by response" that no numbered scenario of §12 pins down
/// on its own: 409 on insert, 404 and 410 on update, 410 on insert and delete, 405, 413, and
/// the undelete that finds the row gone for good.
@Suite struct PushStatusTests {
    @Test("409 on insert: the same item is a replay; a different one is added on both sides") func duplicateInsert() throws {
        let world = try SyncWorld(wire: .inProcess)
        world.raw("POST", "/tables/todoitem", body: ["id": "same", "text": "a", "complete": false])
        world.raw("POST", "/tables/todoitem", body: ["id": "other", "text": "theirs", "complete": false])
        let b = world.replica("B")
        b.expect(0, "add", "a", "--id", "same")
        b.expect(0, "add", "mine", "--id", "other")
        b.expect(3, "push")
        #expect(world.writes().map(\.status) == [409, 409])
        #expect(world.requests().filter { $0.method == "GET" }.isEmpty, "the 409 body has a version: no GET")
        #expect(b.receipts.last?["rule"] == "insert-exists")
        #expect(b.item("same")?["ms_version"]?.stringValue == world.version("same"))
        let conflict = try #require(b.conflicts.first)
        #expect(b.conflicts.count == 1)
        #expect(conflict["id"] == "other")
        #expect(conflict["status"] == 409)
        #expect(conflict["operation"]?["kind"] == "insert")
        #expect(conflict["base"] == .null)
        #expect(conflict["fields"] == ["text"])
        #expect(conflict["server"]?["text"] == "theirs")
        #expect(world.row("other")?["text"] == "theirs")
    }

    @Test("409 on insert with the client's own body (Node): the copy comes from a GET") func untrustedConflictBody() throws {
        let world = try SyncWorld(wire: .inProcess)
        world.raw("POST", "/tables/todoitem", body: ["id": "x", "text": "theirs", "complete": false])
        world.script { request, service in
            guard request.method == "POST" else { return service(request) }
            return Scripted.answer(409, (try? JSONValue.parse(request.body)) ?? .null)
        }
        let b = world.replica("B")
        b.expect(0, "add", "mine", "--id", "x")
        b.expect(3, "push")
        #expect(world.requests().map(\.method) == ["POST", "GET"])
        #expect(b.conflicts.first?["server"]?["text"] == "theirs")
        #expect(b.conflicts.first?["server"]?["ms_version"]?.stringValue == world.version("x"))
    }

    @Test("404 on update: the table check finds the table; changed here, deleted there") func updateOfDeletedItem() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        world.synced(a, "x")
        a.expect(0, "edit", "x", "--text", "b")
        world.raw("DELETE", "/tables/todoitem/x")
        world.resetLog()
        a.expect(3, "push")
        #expect(world.requests().map { "\($0.method) \($0.path) \($0.status)" }
                == ["PATCH /tables/todoitem/x 404", "GET /tables/todoitem 200", "GET /tables/todoitem 200"])
        #expect(world.requests().last?.query("$filter") == "id eq 'x'", "the server copy comes from the one-row query")
        let conflict = try #require(a.conflicts.first)
        #expect(conflict["status"] == 404)
        #expect(conflict["server"]?["ms_deleted"] == true)
        #expect(conflict["fields"] == [])
        #expect(a.operations.first?["attempted"] == false)
    }

    @Test("410: success for a delete, a conflict for an insert and an update") func gone() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        world.synced(a, "d")
        world.synced(a, "u")
        a.expect(0, "rm", "d")
        a.expect(0, "edit", "u", "--text", "b")
        a.expect(0, "add", "new", "--id", "i")
        world.script { request, service in
            request.isWrite ? Scripted.answer(410, ["error": "gone"]) : service(request)
        }
        a.expect(3, "push")
        let conflicts = Dictionary(uniqueKeysWithValues: a.conflicts.map { ($0["id"]!.stringValue!, $0) })
        #expect(Set(conflicts.keys) == ["u", "i"])
        #expect(conflicts["u"]?["status"] == 410)
        #expect(conflicts["i"]?["status"] == 410)
        #expect(a.operations.map { $0["id"] } == ["u", "i"], "the delete succeeded")
        // 410 means deleted (protocol §10.4): nothing to merge, and nothing sent twice.
        #expect(world.writes().count == 3)
        #expect(conflicts["u"]?["fields"] == [])
        #expect(a.receipts.allSatisfy { $0["decision"] != "merge" })
    }

    @Test("405 stops with exit 1; 413 is a rejection and the push goes on") func notAllowedAndTooLarge() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        a.expect(0, "add", "big", "--id", "big")
        a.expect(0, "add", "small", "--id", "small")
        world.script { request, service in
            guard request.method == "POST" else { return service(request) }
            return (try? JSONValue.parse(request.body))?["id"] == "big" ? Scripted.answer(413, ["error": "too large"]) : service(request)
        }
        a.expect(3, "push", "--jobs", "1")
        #expect(a.conflicts.first?["reason"] == "rejected")
        #expect(a.conflicts.first?["status"] == 413)
        #expect(a.conflicts.first?["message"] == "too large")
        #expect(world.row("small") != nil)

        a.expect(0, "add", "more", "--id", "more")
        world.script { request, service in request.isWrite ? Scripted.answer(405, ["error": "read only"]) : service(request) }
        let before = a.snapshot()
        let push = a.expect(1, "push")
        #expect(push.err.contains("does not allow POST on table 'todoitem'"), "\(push)")
        #expect(a.snapshot() == before)
    }

    @Test("the undelete of a restore finds the row gone for good: the op becomes an insert") func restoreOfPurgedRow() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        world.synced(a, "r")
        world.raw("DELETE", "/tables/todoitem/r")
        let deleted = try #require(world.row("r"))
        a.expect(0, "edit", "r", "--text", "back")
        let sequence = try #require(a.operations.first?["sequence"]?.intValue)
        a.rewriteOperation(sequence) { op in
            op["restore"] = true
            op["base"] = ["id": "r", "text": "a", "complete": false, "ms_version": deleted["version"]!, "ms_deleted": true]
        }
        // The server purged r for good meanwhile: the undelete answers 404.
        try world.storage.write("todoitem") { w in w.remove(id: "r") }
        world.resetLog()
        a.expect(0, "push")
        #expect(world.writes().map { "\($0.method) \($0.path) \($0.status)" }
                == ["POST /tables/todoitem/r 404", "POST /tables/todoitem 201"])
        #expect(world.writes().last?.json == ["id": "r", "text": "back", "complete": false])
        #expect(world.row("r")?["text"] == "back")
        #expect(world.row("r")?["deleted"] == false)
        #expect(a.operations.isEmpty)
        #expect(a.item("r")?["ms_version"]?.stringValue == world.version("r"))
    }
}
