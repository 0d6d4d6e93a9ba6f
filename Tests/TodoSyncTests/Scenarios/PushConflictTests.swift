import Testing
import TableProtocol
import TodoModel
import TodoTestSupport

/// sync.md §12, conflicts, merges and rejections on push: scenarios 25–30 and 32.
@Suite struct PushConflictTests {
    @Test("25: one clashing update among 5 inserts: 5 rows, 1 conflict file, exit 3") func oneConflictAmongMany() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        let v1 = try #require(world.synced(a, "x"))
        a.expect(0, "edit", "x", "--text", "b")
        for i in 1...5 { a.expect(0, "add", "item \(i)", "--id", "n\(i)") }
        world.raw("PATCH", "/tables/todoitem/x", body: ["text": "c"])
        let v2 = try #require(world.version("x"))
        let push = a.expect(3, "push")
        for i in 1...5 { #expect(world.row("n\(i)")?["text"]?.stringValue == "item \(i)") }
        #expect(a.conflicts.count == 1)
        let conflict = try #require(a.conflicts.first)
        #expect(conflict["id"] == "x")
        #expect(conflict["reason"] == "conflict")
        #expect(conflict["status"] == 412)
        #expect(conflict["detectedBy"] == "push")
        #expect(conflict["fields"] == ["text"])
        #expect(conflict["operation"]?["kind"] == "update")
        #expect(conflict["base"]?["ms_version"]?.stringValue == v1)
        #expect(conflict["server"]?["ms_version"]?.stringValue == v2)
        #expect(conflict["server"]?["text"] == "c")
        #expect(conflict["client"]?["text"] == "b")
        #expect(conflict["resolved"] == .null)
        #expect(a.operations.count == 1)
        #expect(a.operations.first?["attempted"] == false)
        #expect(world.row("x")?["text"] == "c")
        #expect(push.out.contains("conflict (412): text changed on both sides"), "\(push)")
        #expect(push.out.contains("1 conflict open"), "\(push)")
    }

    @Test("26: a sealed update turns into a conflict; the delete behind it is held; others go") func heldBehindAConflict() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        world.synced(a, "x")
        a.expect(0, "edit", "x", "--text", "b")
        a.sealOperations()  // a push was killed after the marker
        a.expect(0, "rm", "x")
        #expect(a.operations.map { $0["kind"] } == ["update", "delete"])
        a.expect(0, "add", "y", "--id", "y")
        world.raw("PATCH", "/tables/todoitem/x", body: ["text": "c"])
        world.resetLog()
        let push = a.expect(3, "push", "--json")
        // x: only the replay check's GET; neither the PATCH nor the DELETE left.
        #expect(world.requests(for: "x").map(\.method) == ["GET"])
        #expect(world.row("y") != nil)
        #expect(world.row("x")?["text"] == "c")
        #expect(world.row("x")?["deleted"] == false)
        let conflict = try #require(a.conflicts.first)
        #expect(conflict["operation"]?["kind"] == "update")
        #expect(conflict["fields"] == ["text"])
        #expect(conflict["client"] == .null, "the item is deleted locally")
        #expect(a.operations.map { $0["kind"] } == ["update", "delete"])
        #expect(a.operations.allSatisfy { $0["attempted"] == false })
        let report = try JSONValue.parse(push.out)
        #expect(report["held"] == 1)
        #expect(report["newConflicts"] == 1)
    }

    @Test("27: an open conflict is not sent again; exit 3 each time") func openConflictsAreNotResent() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        world.synced(a, "x")
        a.expect(0, "edit", "x", "--text", "b")
        world.raw("PATCH", "/tables/todoitem/x", body: ["text": "c"])
        a.expect(3, "push")
        let conflict = a.conflicts
        #expect(conflict.count == 1)
        a.expect(0, "add", "y", "--id", "y")
        world.resetLog()
        let first = a.expect(3, "push")
        let second = a.expect(3, "push")
        #expect(world.requests(for: "x").isEmpty)
        #expect(world.writes().map(\.method) == ["POST"], "y goes, x does not")
        #expect(a.conflicts == conflict)
        #expect(a.operations.count == 1)
        #expect(first.out.contains("held"), "\(first)")
        #expect(second.out.contains("1 conflict open"), "\(second)")
    }

    @Test("28: disjoint changes merge on a 412; the PATCH goes again on v2") func autoMerge() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        let v1 = try #require(world.synced(a, "x"))
        world.raw("PATCH", "/tables/todoitem/x", body: ["complete": true])
        let v2 = try #require(world.version("x"))
        a.expect(0, "edit", "x", "--text", "b")
        world.resetLog()
        a.expect(0, "push")
        let requests = world.requests()
        #expect(requests.map { "\($0.method) \($0.status)" } == ["PATCH 412", "PATCH 200"], "the merged copy is sent at once")
        #expect(requests.first?.headers["If-Match"] == "\"\(v1)\"")
        #expect(requests.last?.headers["If-Match"] == "\"\(v2)\"")
        #expect(requests.last?.json == ["id": "x", "text": "b", "complete": true])
        let row = try #require(world.row("x"))
        #expect(row["text"] == "b")
        #expect(row["complete"] == true)
        let receipt = try #require(a.receipts.last)
        #expect(receipt["decision"] == "merge")
        #expect(receipt["rule"] == "push")
        #expect(receipt["fields"] == ["fromClient": ["text"], "fromServer": ["complete"]])
        #expect(receipt["kept"] == ["id": "x", "text": "b", "complete": true])
        #expect(a.item("x")?["complete"] == true)
        #expect(a.item("x")?["ms_version"] == row["version"])
        #expect(a.operations.isEmpty)
        #expect(a.conflicts.isEmpty)
    }

    @Test("28, §4.6.3: a fourth 412 for one op in one push records a conflict without fields") func busyItem() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        world.synced(a, "x", set: ["n=0"])
        a.expect(0, "edit", "x", "--text", "b")
        // Another client changes `n` just before every PATCH of ours lands.
        let patches = Scripted.Counter()
        world.script { request, service in
            if request.method == "PATCH" {
                let n = patches.next()
                var bump = HTTPHeaders([("ZUMO-API-VERSION", "2.0.0"), ("Content-Type", "application/json")])
                bump.add(name: "Host", value: "127.0.0.1")
                _ = service(HTTPRequest(method: "PATCH", target: "/tables/todoitem/x", headers: bump,
                                        body: JSONValue.object(["n": .number(Double(n))]).compactBytes()))
            }
            return service(request)
        }
        a.expect(3, "push")
        #expect(world.writes().filter { $0.method == "PATCH" }.map(\.status) == [412, 412, 412, 412])
        let conflict = try #require(a.conflicts.first)
        #expect(conflict["fields"] == [])
        #expect(conflict["status"] == 412)
        #expect(a.receipts.filter { $0["decision"] == "merge" }.count == 3)
        #expect(world.row("x")?["text"] == "a")
    }

    @Test("29: the server already has the change: the 412 is a success, the item takes v2") func identicalChange() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        world.synced(a, "x")
        world.raw("PATCH", "/tables/todoitem/x", body: ["text": "b"])
        let v2 = try #require(world.version("x"))
        a.expect(0, "edit", "x", "--text", "b")
        world.resetLog()
        let push = a.expect(0, "push")
        #expect(world.writes().map(\.status) == [412])
        #expect(world.version("x") == v2)
        #expect(a.item("x")?["ms_version"]?.stringValue == v2)
        let receipt = try #require(a.receipts.last)
        #expect(receipt["decision"] == "replay")
        #expect(receipt["rule"] == "update-applied")
        #expect(a.operations.isEmpty)
        #expect(a.conflicts.isEmpty)
        #expect(push.out.contains("replayed"), "\(push)")
    }

    @Test("30: a 409 with the server's item to a stale update is treated as a 412") func bodyVersionServer() throws {
        let world = try SyncWorld(wire: .inProcess)
        // A body-version server (.NET, Node without If-Match): 409 where this server says 412.
        world.script { request, service in
            var response = service(request)
            if response.status == 412 { response.status = 409; response.reason = "Conflict" }
            return response
        }
        let a = world.replica("A")
        world.synced(a, "x")
        world.synced(a, "y")
        world.raw("PATCH", "/tables/todoitem/x", body: ["text": "c"])
        world.raw("PATCH", "/tables/todoitem/y", body: ["complete": true])
        let x2 = try #require(world.version("x"))
        a.expect(0, "edit", "x", "--text", "b")
        a.expect(0, "edit", "y", "--text", "b")
        world.resetLog()
        a.expect(3, "push")
        // x clashes: a conflict with the 409's copy, no GET needed.
        let conflict = try #require(a.conflicts.first)
        #expect(conflict["id"] == "x")
        #expect(conflict["status"] == 409)
        #expect(conflict["fields"] == ["text"])
        #expect(conflict["server"]?["ms_version"]?.stringValue == x2)
        #expect(world.requests(for: "x").map(\.method) == ["PATCH"])
        // y merges and goes again.
        #expect(world.requests(for: "y").map { "\($0.method) \($0.status)" } == ["PATCH 409", "PATCH 200"])
        #expect(world.row("y")?["text"] == "b")
        #expect(world.row("y")?["complete"] == true)
        #expect(a.receipts.last?["decision"] == "merge")
    }

    @Test("32: a 400 becomes a rejection with the server's message; others are pushed; exit 3") func rejection() throws {
        let world = try SyncWorld(wire: .inProcess)
        world.raw("POST", "/tables/todoitem", body: ["id": "seed", "priority": 1])
        let a = world.replica("A")
        a.expect(0, "add", "first", "--id", "y")
        a.expect(0, "add", "bad", "--id", "x", "--set", "priority=\"high\"")
        a.expect(0, "add", "last", "--id", "z")
        let push = a.expect(3, "push", "--jobs", "1")
        #expect(world.row("y") != nil)
        #expect(world.row("z") != nil)
        #expect(world.row("x") == nil)
        let post = try #require(world.writes().first { $0.json?["id"] == "x" })
        #expect(post.status == 400)
        let conflict = try #require(a.conflicts.first)
        #expect(a.conflicts.count == 1)
        #expect(conflict["reason"] == "rejected")
        #expect(conflict["status"] == 400)
        #expect(conflict["server"] == .null)
        #expect(conflict["client"]?["priority"] == "high")
        let message = try #require(conflict["message"]?.stringValue)
        #expect(message.contains("priority"), "\(message)")
        #expect(a.operations.count == 1)
        #expect(a.operations.first?["attempted"] == false)
        #expect(push.out.contains("rejected (400)"), "\(push)")
    }
}
