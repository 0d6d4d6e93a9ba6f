import Testing
import TableProtocol
import TodoModel
import TodoTestSupport

/// sync.md §12, what push puts on the wire and how it reads the answers: scenarios 19, 20, 21,
/// 23, 34, 35, 36, 37.
@Suite struct PushRequestTests {
    @Test("19: the PATCH body is the whole item, null for the removed field, If-Match v1") func updateBody() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        let v1 = try #require(world.synced(a, "x", set: ["note=\"n\""]))
        a.expect(0, "edit", "x", "--text", "b", "--unset", "note")
        a.expect(0, "push")
        let patch = try #require(world.writes().first)
        #expect(world.writes().count == 1)
        #expect(patch.method == "PATCH")
        #expect(patch.json == ["id": "x", "text": "b", "complete": false, "note": .null])
        #expect(patch.headers["If-Match"] == "\"\(v1)\"")
        let row = try #require(world.row("x"))
        #expect((row["note"] ?? .null) == .null)
        #expect(row["text"] == "b")
        #expect(a.item("x")?["note"] == nil)
    }

    @Test("20: a delete whose base has no version is sent without If-Match") func deleteWithoutVersion() throws {
        let world = try SyncWorld(wire: .inProcess)
        // A server that keeps no versions: no version in bodies, no ETag.
        world.script { request, service in
            var response = service(request)
            response.headers.remove(name: "ETag")
            if var o = (try? JSONValue.parse(response.body))?.objectValue {
                o["version"] = nil
                response.body = JSONValue.object(o).compactBytes()
            }
            return response
        }
        let a = world.replica("A")
        world.synced(a, "x")
        #expect(a.item("x")?["ms_version"] == nil)
        #expect(a.item("x")?["ms_updatedAt"] != nil)
        a.expect(0, "rm", "x")
        a.expect(0, "push")
        let delete = try #require(world.writes().first)
        #expect(delete.method == "DELETE")
        #expect(delete.headers["If-Match"] == nil)
        #expect(delete.status == 200)
        #expect(a.operations.isEmpty)
        #expect(world.row("x")?["deleted"] == true)
    }

    @Test("21: a DELETE answered 404 (deleted there meanwhile) is a success") func deleteOfMissingItem() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        world.synced(a, "x")
        a.expect(0, "rm", "x")
        world.raw("DELETE", "/tables/todoitem/x")
        world.resetLog()
        let push = a.expect(0, "push")
        #expect(world.writes().map(\.status) == [404])
        #expect(a.operations.isEmpty)
        #expect(a.conflicts.isEmpty)
        #expect(push.out.contains("1 ok"), "\(push)")
    }

    @Test("23: a wrong app key stops with exit 4; the ops are unchanged and not sealed") func authentication() throws {
        let world = try SyncWorld(wire: .inProcess) { $0.appKey = "right" }
        let a = world.replica("A", extraInit: ["--app-key", "wrong"])
        a.expect(0, "add", "one", "--id", "x1")
        a.expect(0, "add", "two", "--id", "x2")
        let before = a.snapshot()
        let push = a.expect(4, "push", "--jobs", "1")
        #expect(world.requests().first?.status == 401)
        #expect(world.writes().count == 1, "the push stops at the first 401")
        #expect(push.err.contains("app key"), "\(push)")
        #expect(a.snapshot() == before)
        #expect(a.operations.allSatisfy { $0["attempted"] == false })
    }

    @Test("34: insert 200, delete 204, delete 200 with a body, undelete 200: every op succeeds") func toleratedVariants() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        world.synced(a, "d1")
        world.synced(a, "d2")
        world.synced(a, "r")
        // r is deleted on the server while edited here: a `restore` update (as `resolve --use-client` leaves it).
        world.raw("DELETE", "/tables/todoitem/r")
        let deleted = try #require(world.row("r"))
        a.expect(0, "edit", "r", "--text", "back")
        let updateSequence = try #require(a.operations.first?["sequence"]?.intValue)
        a.rewriteOperation(updateSequence) { op in
            op["restore"] = true
            op["base"] = ["id": "r", "text": "a", "complete": false, "ms_version": deleted["version"]!,
                          "ms_updatedAt": deleted["updatedAt"]!, "ms_createdAt": deleted["createdAt"]!, "ms_deleted": true]
        }
        a.expect(0, "add", "new", "--id", "i")
        a.expect(0, "rm", "d1")
        a.expect(0, "rm", "d2")
        world.script { request, service in
            let response = service(request)
            switch (request.method, request.path) {
            case ("POST", "/tables/todoitem"), ("POST", "/tables/todoitem/r"):
                var r = response; r.status = 200; return r
            case ("DELETE", "/tables/todoitem/d1"):
                return Scripted.answer(204)
            default:
                return response  // DELETE d2: 200 with the deleted item
            }
        }
        world.resetLog()
        let push = a.expect(0, "push")
        let statuses = Dictionary(world.writes().map { ("\($0.method) \($0.path)", $0.status) }, uniquingKeysWith: { $1 })
        #expect(statuses["POST /tables/todoitem/r"] == 200)
        #expect(statuses["PATCH /tables/todoitem/r"] == 200)
        #expect(statuses["POST /tables/todoitem"] == 200)
        #expect(statuses["DELETE /tables/todoitem/d1"] == 204)
        #expect(statuses["DELETE /tables/todoitem/d2"] == 200)
        #expect(a.operations.isEmpty, "\(push)")
        #expect(a.conflicts.isEmpty)
        #expect(world.row("r")?["deleted"] == false)
        #expect(world.row("r")?["text"] == "back")
        #expect(world.row("i")?["text"] == "new")
        // The undelete carried the deleted copy's version; the PATCH the undeleted one's.
        let undelete = try #require(world.writes().first { $0.method == "POST" && $0.path == "/tables/todoitem/r" })
        #expect(undelete.headers["If-Match"] == "\"\(deleted["version"]!.stringValue!)\"")
        let patch = try #require(world.writes().first { $0.method == "PATCH" })
        #expect(patch.headers["If-Match"] != undelete.headers["If-Match"])
        #expect(a.item("r")?["ms_version"]?.stringValue == world.version("r"))
    }

    @Test("35: a missing table stops the push with exit 1; the op remains") func missingTable() throws {
        let world = try SyncWorld(wire: .inProcess) { $0.dynamicTables = false }
        let a = world.replica("A")
        a.expect(0, "add", "x", "--id", "x", "--table", "nosuch")
        let before = a.snapshot()
        let push = a.expect(1, "push")
        #expect(push.err.contains("the server has no table 'nosuch'"), "\(push)")
        #expect(world.requests().map { "\($0.method) \($0.path) \($0.status)" }
                == ["POST /tables/nosuch 404", "GET /tables/nosuch 404"])
        #expect(a.operations.count == 1)
        #expect(a.snapshot() == before)
    }

    @Test("36: a redirect stops the push with exit 1 naming the Location; nothing changes") func redirect() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        world.synced(a, "x")
        a.expect(0, "edit", "x", "--text", "b")
        a.expect(0, "add", "y", "--id", "y")
        world.script { _, _ in Scripted.answer(301, headers: [("Location", "https://elsewhere.example/tables/todoitem")]) }
        let before = a.snapshot()
        let push = a.expect(1, "push")
        #expect(push.err.contains("https://elsewhere.example/tables/todoitem"), "\(push)")
        #expect(a.snapshot() == before)
        #expect(world.row("y") == nil)
        #expect(world.row("x")?["text"] == "a")
    }

    @Test("37: G1 sends no ZUMO-API-VERSION, asks for all system properties, takes 204 for a delete") func generationOne() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A", protocol: "mobile-services")
        world.synced(a, "u")
        world.synced(a, "d")
        let v1 = try #require(world.version("u"))
        #expect(a.item("u")?["ms_version"]?.stringValue == v1)
        a.expect(0, "add", "new", "--id", "i")
        a.expect(0, "edit", "u", "--text", "b")
        a.expect(0, "rm", "d")
        a.expect(0, "push")
        let requests = world.requests()
        #expect(Set(requests.map(\.method)).isSuperset(of: ["POST", "PATCH", "DELETE"]))
        for r in requests {
            #expect(!r.headers.contains(name: "ZUMO-API-VERSION"), "\(r.method) \(r.target)")
            let query = r.target.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
            let decoded = (try? PercentEncoding.decode(query, plusAsSpace: false)) ?? query
            #expect(decoded.contains("__systemproperties=__createdAt,__updatedAt,__version,__deleted"), "\(r.target)")
        }
        #expect(requests.first { $0.method == "DELETE" }?.status == 204)
        #expect(requests.first { $0.method == "PATCH" }?.headers["If-Match"] == "\"\(v1)\"")
        #expect(a.operations.isEmpty)
        #expect(world.row("u")?["text"] == "b")
        #expect(world.row("d")?["deleted"] == true)
        #expect(a.item("i")?["ms_version"]?.stringValue == world.version("i"))
    }
}
