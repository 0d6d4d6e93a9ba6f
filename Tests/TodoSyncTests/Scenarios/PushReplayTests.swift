import Testing
import TodoModel
import TodoTestSupport

/// sync.md §12, crash and replay: a push killed before or after its request landed, and the
/// next push finishing the job exactly once. Scenarios 14 and 83–88.
///
/// "Killed after the marker" is an op file with `attempted: true` (what the marker commit
/// writes). "Killed after the request landed" is a push against a server that applies the first
/// write and then answers 503 to everything: the push stops with the op sealed, exactly the
/// state a kill after the request leaves.
@Suite struct PushReplayTests {
    @Test("83: killed before the request: the replay query finds no row, the POST goes, one row") func killBeforeRequest() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        a.expect(0, "add", "a", "--id", "x")
        a.sealOperations()
        let push = a.expect(0, "push")
        #expect(world.requests().map { "\($0.method) \($0.path) \($0.status)" }
                == ["GET /tables/todoitem 200", "POST /tables/todoitem 201"])
        #expect(world.requests().first?.isServerCopyQuery(for: "x") == true)
        #expect(world.rows().count == 1)
        #expect(a.operations.isEmpty)
        #expect(a.item("x")?["ms_version"]?.stringValue == world.version("x"))
        #expect(!push.out.contains("replayed"), "\(push)")
    }

    @Test("84: killed after the insert landed: no POST, a replay insert-exists receipt") func killAfterInsert() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        a.expect(0, "add", "a", "--id", "x")
        world.landThenFail()
        a.expect(4, "push")
        #expect(a.operations.first?["attempted"] == true)
        #expect(world.row("x") != nil)
        world.script(nil)
        world.resetLog()
        let push = a.expect(0, "push")
        #expect(world.requests().map(\.method) == ["GET"])
        #expect(world.rows().count == 1)
        #expect(a.operations.isEmpty)
        let receipt = try #require(a.receipts.last)
        #expect(receipt["decision"] == "replay")
        #expect(receipt["rule"] == "insert-exists")
        #expect(receipt["kept"] == ["id": "x", "text": "a", "complete": false])
        #expect(a.item("x")?["ms_version"]?.stringValue == world.version("x"))
        #expect(push.out.contains("ok (replayed: insert-exists)"), "\(push)")
    }

    @Test("85: killed after the update landed: no 412 conflict; the item takes the server's version") func killAfterUpdate() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        let v1 = try #require(world.synced(a, "x"))
        a.expect(0, "edit", "x", "--text", "b")
        world.landThenFail()
        a.expect(4, "push")
        let v2 = try #require(world.version("x"))
        #expect(v2 != v1)
        #expect(world.row("x")?["text"] == "b")
        world.script(nil)
        world.resetLog()
        a.expect(0, "push")
        #expect(world.requests().map(\.method) == ["GET"])
        #expect(a.conflicts.isEmpty)
        #expect(a.operations.isEmpty)
        #expect(a.receipts.last?["rule"] == "update-applied")
        #expect(a.item("x")?["ms_version"]?.stringValue == v2)
        #expect(world.version("x") == v2)
    }

    @Test("86: killed after the delete landed: the replay GET finds it deleted (or gone); done") func killAfterDelete() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        world.synced(a, "x")
        world.synced(a, "gone")
        a.expect(0, "rm", "x")
        a.expect(0, "rm", "gone")
        world.landThenFail()
        a.expect(4, "push", "--jobs", "1")
        #expect(world.row("x")?["deleted"] == true)
        #expect(a.operations.map { $0["attempted"] } == [true, false], "the second delete was never sent")
        // Meanwhile someone purges `gone` for good: its replay query finds nothing.
        a.sealOperations()
        world.script { request, service in
            request.method == "GET" && request.target.contains("gone") ? Scripted.answer(200, []) : service(request)
        }
        world.resetLog()
        a.expect(0, "push")
        #expect(world.writes().isEmpty)
        #expect(world.requests().map(\.status) == [200, 200])
        #expect(world.requests().map { $0.isServerCopyQuery(for: "x") || $0.isServerCopyQuery(for: "gone") } == [true, true])
        #expect(a.operations.isEmpty)
        #expect(a.receipts.filter { $0["rule"] == "delete-gone" }.count == 2)
    }

    @Test("87: an edit after a crash queues behind; the replay's version feeds the next PATCH") func editAfterCrash() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        world.synced(a, "x")
        a.expect(0, "edit", "x", "--text", "b")
        world.landThenFail()
        a.expect(4, "push")
        let v2 = try #require(world.version("x"))
        world.script(nil)
        a.expect(0, "edit", "x", "--text", "c")
        #expect(a.operations.count == 2, "a sealed op never takes a later change")
        #expect(a.operations.first?["item"]?["text"] == "b")
        world.resetLog()
        a.expect(0, "push")
        let requests = world.requests()
        #expect(requests.map { "\($0.method) \($0.status)" } == ["GET 200", "PATCH 200"])
        #expect(requests.last?.headers["If-Match"] == "\"\(v2)\"")
        #expect(requests.last?.json?["text"] == "c")
        #expect(world.row("x")?["text"] == "c")
        #expect(a.conflicts.isEmpty)
        #expect(a.operations.isEmpty)
        #expect(a.item("x")?["ms_version"]?.stringValue == world.version("x"))
    }

    @Test("88: connection refused clears the marker, so insert + delete collapse to nothing") func connectionRefused() throws {
        // A stopped server refuses connections: only a socket can.
        let world = try SyncWorld(wire: .socket)
        let a = world.replica("A")
        a.expect(0, "add", "a", "--id", "x")
        a.expect(0, "add", "b", "--id", "y")
        world.server.stop()
        let push = a.expect(4, "push")
        #expect(push.err.hasPrefix("error: could not reach \(world.url) (cannot connect to 127.0.0.1:\(world.port)"), "\(push)")
        #expect(push.err.contains("; your 2 changes are kept\nhint: run 'todo push' again when the server is reachable"), "\(push)")
        #expect(push.out.contains("(the push stopped before sending the rest)\n0 ok, 2 left in the queue") && !push.out.contains("insert  todoitem"), "\(push)")
        #expect(a.operations.allSatisfy { $0["attempted"] == false })
        a.expect(0, "rm", "y")
        a.expect(0, "rm", "x")
        #expect(a.operations.isEmpty)
        #expect(a.receipts.last?["rule"] == "insert+delete")
    }

    @Test("14: a delete after an attempted insert queues behind it; no row x stays live") func deleteAfterAttemptedInsert() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        // x: the POST landed before the kill. z: killed after the marker, nothing sent.
        a.expect(0, "add", "a", "--id", "x")
        world.landThenFail()
        a.expect(4, "push")
        a.expect(0, "add", "c", "--id", "z")
        a.sealOperations()
        world.script(nil)
        a.expect(0, "rm", "x")
        a.expect(0, "rm", "z")
        #expect(a.operations.map { "\($0["kind"]!.stringValue!) \($0["id"]!.stringValue!)" }
                == ["insert x", "insert z", "delete x", "delete z"])
        #expect(a.item("x") == nil)
        // Their base is the sealed insert's, null (§2.2.1, §3.5.1): the store is sound.
        #expect(a.operations.filter { $0["kind"] == "delete" }.allSatisfy { $0["base"] == .null })
        a.expect(0, "doctor")
        world.resetLog()
        a.expect(0, "push")
        #expect(a.operations.isEmpty)
        for id in ["x", "z"] {
            #expect(world.row(id)?["deleted"] == true, "\(id)")
            // The DELETE carries the version the insert produced.
            let delete = try #require(world.writes().first { $0.method == "DELETE" && $0.path == "/tables/todoitem/\(id)" })
            #expect(delete.status == 200)
            #expect(delete.headers["If-Match"] != nil)
        }
        #expect(world.writes().filter { $0.method == "POST" }.map { $0.json?["id"] } == ["z"], "x was not posted twice")
        #expect(a.item("x") == nil)
        #expect(a.item("z") == nil)
    }

    @Test("an update behind a sealed insert has a null base; doctor accepts it, push sends it on the new version") func updateBehindSealedInsert() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        a.expect(0, "add", "a", "--id", "x")
        a.expect(0, "add", "a", "--id", "y")
        a.sealOperations()
        a.expect(0, "edit", "x", "--text", "b")
        #expect(a.operations.count == 3)
        #expect(a.operations.last?["base"] == .null)
        a.expect(0, "doctor")
        // An update with a null base and no insert before it is still a broken store.
        let update = try #require(a.operations.last)
        a.expect(0, "push")
        #expect(world.row("x")?["text"] == "b")
        #expect(world.row("y")?["text"] == "a")
        var orphan = update.objectValue!
        orphan["sequence"] = 99
        orphan["id"] = "y"
        orphan["item"] = ["id": "y", "text": "c"]
        let path = a.directory + "/.todo/operations/0000000099.update.todoitem.y.json"
        try a.fs.writeFile(path, JSONValue.object(orphan).canonicalBytes(), sync: false)
        let doctor = a.expect(1, "doctor")
        #expect((doctor.out + doctor.err).contains("an update needs a base"), "\(doctor)")
    }

    @Test("a conflict behind a sealed update names the fields --merge will find clashing") func conflictFieldsMatchMerge() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        a.expect(0, "add", "a", "--id", "x")
        a.expect(0, "push")
        let b = world.replica("B")
        b.expect(0, "pull")
        // A's PATCH lands, the answers are lost: the op stays sealed; a later edit queues behind it.
        a.expect(0, "edit", "x", "--text", "b")
        world.landThenFail()
        a.expect(4, "push")
        world.script(nil)
        b.expect(0, "pull")
        b.expect(0, "done", "x")
        b.expect(0, "push")
        a.expect(0, "edit", "x", "--text", "c")
        #expect(a.operations.count == 2)
        // The sealed op alone would merge (text b both sides, complete from B), but the local item
        // says "c" where the server says "b": --merge clashes on text, so the file must say so.
        a.expect(3, "push")
        let conflict = try #require(a.conflicts.first)
        #expect(conflict["fields"] == ["text"], "\(conflict)")
        let merge = a.expect(1, "resolve", "x", "--merge")
        #expect(merge.err.contains("text"), "\(merge)")
        a.expect(0, "resolve", "x", "--use-client")
        a.expect(0, "push")
        #expect(world.row("x")?["text"] == "c")
    }

    @Test("§4.8.2: a stop keeps the markers an earlier run left; such ops are never collapsed") func stopKeepsLeftoverMarkers() throws {
        // A stopped server refuses connections: only a socket can.
        let world = try SyncWorld(wire: .socket)
        let a = world.replica("A")
        a.expect(0, "add", "a", "--id", "x")
        a.expect(0, "add", "b", "--id", "y")
        // A push sent both and was killed; y's POST landed.
        world.raw("POST", "/tables/todoitem", body: ["id": "y", "text": "b", "complete": false])
        a.sealOperations()
        world.server.stop()
        a.expect(4, "push", "--jobs", "1")
        #expect(a.operations.map { $0["attempted"] } == [true, true], "y was not reached, but its earlier request may have landed")
        a.expect(0, "rm", "y")
        #expect(a.operations.map { $0["kind"] } == ["insert", "insert", "delete"], "the delete queues behind the sealed insert")
    }
}
