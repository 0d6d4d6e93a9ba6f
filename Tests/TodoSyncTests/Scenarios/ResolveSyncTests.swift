import Testing
import TableProtocol
import TodoModel
import TodoTestSupport

/// sync.md §12, resolving a "changed on both sides" conflict and publishing the decision over the
/// real server: scenarios 60, 63, 65, 66, 74, 75 and 76. (59, 61, 64, 67, 72 and 73 need no
/// server and are in TodoCLITests.)
@Suite struct ResolveSyncTests {
    @Test("60: use client, then push: a PATCH on v2 with the client text; the receipt has the server's lost text")
    func useClientThenPush() throws {
        let world = try SyncWorld(wire: .inProcess)
        let b = world.replica("B")
        let (_, v2) = try world.textConflict(b)
        b.expect(0, "resolve", "x", "--use-client")
        let receipt = try #require(b.receipts.last)
        #expect(receipt["decision"] == "resolve")
        #expect(receipt["rule"] == "use-client")
        #expect(receipt["lost"] == ["client": [:], "server": ["text": "c"]])
        #expect(receipt["kept"] == ["id": "x", "text": "b", "complete": false])
        #expect(b.operations.first?["base"]?["ms_version"]?.stringValue == v2)
        #expect(world.requests().isEmpty, "resolve works offline")

        b.expect(0, "push")
        let writes = world.writes()
        #expect(writes.map { "\($0.method) \($0.path) \($0.status)" } == ["PATCH /tables/todoitem/x 200"])
        #expect(writes.first?.headers["If-Match"] == "\"\(v2)\"")
        #expect(writes.first?.json == ["id": "x", "text": "b", "complete": false])
        #expect(world.row("x")?["text"] == "b")
        #expect(b.item("x")?["ms_version"] == world.row("x")?["version"])
        #expect(b.operations.isEmpty && b.conflicts.isEmpty)
    }

    @Test("60 with a later op: the delete held behind the conflict folds in; the push deletes on v2")
    func useClientFoldsALaterDelete() throws {
        let world = try SyncWorld(wire: .inProcess)
        let b = world.replica("B")
        world.synced(b, "x")
        b.expect(0, "edit", "x", "--text", "b")
        b.sealOperations()  // a push was killed after the marker
        b.expect(0, "rm", "x")
        world.raw("PATCH", "/tables/todoitem/x", body: ["text": "c"])
        let v2 = try #require(world.version("x"))
        b.expect(3, "push")
        #expect(b.operations.map { $0["kind"] } == ["update", "delete"])
        b.expect(0, "resolve", "x", "--use-client")
        let op = try #require(b.operations.first)
        #expect(b.operations.count == 1)
        #expect(op["kind"] == "delete")
        #expect(op["base"]?["ms_version"]?.stringValue == v2)
        #expect(b.receipts.suffix(2).map { "\($0["decision"]?.stringValue ?? "") \($0["rule"]?.stringValue ?? "")" }
                == ["collapse update+delete", "resolve use-client"])
        world.resetLog()
        b.expect(0, "push")
        #expect(world.writes().map { "\($0.method) \($0.status)" } == ["DELETE 200"])
        #expect(world.writes().first?.headers["If-Match"] == "\"\(v2)\"")
        #expect(world.row("x")?["deleted"] == true)
    }

    @Test("63: a conflict without fields (the 4th 412 in one push) merges, and the next push succeeds")
    func mergeAfterBusyItem() throws {
        let world = try SyncWorld(wire: .inProcess)
        let b = world.replica("B")
        world.synced(b, "x", set: ["n=0"])
        b.expect(0, "edit", "x", "--text", "b")
        // Another client changes `n` just before each of our PATCHes lands: four 412s, each with a
        // newer server copy.
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
        b.expect(3, "push")
        world.script(nil)
        #expect(world.writes().map(\.status) == [412, 412, 412, 412])
        let conflict = try #require(b.conflicts.first)
        #expect(conflict["fields"] == [])
        let server = try #require(world.row("x"))
        #expect(conflict["server"]?["ms_version"] == server["version"])
        #expect(server["n"] == 4)

        b.expect(0, "resolve", "x", "--merge")
        #expect(b.conflicts.isEmpty)
        let item = try #require(b.item("x"))
        #expect(item["text"] == "b")
        #expect(item["n"] == 4)
        let op = try #require(b.operations.first)
        #expect(b.operations.count == 1)
        #expect(op["kind"] == "update")
        #expect(op["base"]?["ms_version"] == server["version"], "re-based on the server's version")
        #expect(op["item"] == ["id": "x", "text": "b", "complete": false, "n": 4])
        let receipt = try #require(b.receipts.last)
        #expect(receipt["rule"] == "merge")
        #expect(receipt["fields"] == ["fromClient": ["text"], "fromServer": ["n"]])

        world.resetLog()
        b.expect(0, "push")
        let writes = world.writes()
        #expect(writes.map { "\($0.method) \($0.status)" } == ["PATCH 200"])
        #expect(writes.first?.headers["If-Match"] == "\"\(server["version"]?.stringValue ?? "")\"")
        let row = try #require(world.row("x"))
        #expect(row["text"] == "b")
        #expect(row["n"] == 4)
        #expect(b.operations.isEmpty && b.conflicts.isEmpty)
    }

    @Test("65: a manual object in 'resolved' is based on v2 and lands on the server")
    func manualObject() throws {
        let world = try SyncWorld(wire: .inProcess)
        let b = world.replica("B")
        let (_, v2) = try world.textConflict(b)
        try b.writeResolution("x", ["text": "I love both", "complete": nil])  // null: removed on purpose (issue 15 item 7)
        b.expect(0, "resolve", "x")
        #expect(b.item("x")?["text"] == "I love both")
        let op = try #require(b.operations.first)
        #expect(op["kind"] == "update")
        #expect(op["base"]?["ms_version"]?.stringValue == v2)
        #expect(op["attempted"] == false)
        let receipt = try #require(b.receipts.last)
        #expect(receipt["rule"] == "manual")
        #expect(receipt["lost"]?["server"]?["text"] == "c")
        #expect(receipt["lost"]?["client"]?["text"] == "b")

        b.expect(0, "push")
        let patch = try #require(world.writes().first)
        #expect(world.writes().count == 1)
        #expect(patch.method == "PATCH")
        #expect(patch.headers["If-Match"] == "\"\(v2)\"")
        // The resolution is the whole wanted item: `complete`, which it sets to null, is cleared.
        #expect(patch.json == ["id": "x", "text": "I love both", "complete": .null])
        #expect(world.row("x")?["text"] == "I love both")
        #expect(b.operations.isEmpty && b.conflicts.isEmpty)
    }

    @Test("66: a manual \"delete\" becomes a DELETE on v2 that removes the server row")
    func manualDelete() throws {
        let world = try SyncWorld(wire: .inProcess)
        let b = world.replica("B")
        let (_, v2) = try world.textConflict(b)
        try b.writeResolution("x", "delete")
        b.expect(0, "resolve", "x")
        #expect(b.item("x") == nil)
        let op = try #require(b.operations.first)
        #expect(op["kind"] == "delete")
        #expect(op["base"]?["ms_version"]?.stringValue == v2)

        b.expect(0, "push")
        let writes = world.writes()
        #expect(writes.map { "\($0.method) \($0.path) \($0.status)" } == ["DELETE /tables/todoitem/x 200"])
        #expect(writes.first?.headers["If-Match"] == "\"\(v2)\"")
        #expect(world.row("x")?["deleted"] == true)
        #expect(world.rows().isEmpty)
        #expect(b.operations.isEmpty && b.conflicts.isEmpty)
    }

    @Test("74: a pull that brings the client's own text closes the conflict with an absorb receipt")
    func refreshClosesTheConflict() throws {
        let world = try SyncWorld(wire: .inProcess)
        let b = world.replica("B")
        _ = try world.textConflict(b)
        world.raw("PATCH", "/tables/todoitem/x", body: ["text": "b"])  // another client agrees with B
        let v3 = try #require(world.version("x"))
        b.expect(0, "pull")
        #expect(b.conflicts.isEmpty)
        #expect(b.operations.isEmpty)
        let receipt = try #require(b.receipts.last)
        #expect(receipt["decision"] == "absorb")
        #expect(receipt["rule"] == "pull")
        #expect(b.item("x")?["text"] == "b")
        #expect(b.item("x")?["ms_version"]?.stringValue == v3)
        world.resetLog()
        b.expect(0, "push")
        #expect(world.writes().isEmpty)
    }

    @Test("75: a pull keeps a written resolution and refreshes the server copy; resolve then bases the op on v3")
    func refreshKeepsAManualResolution() throws {
        let world = try SyncWorld(wire: .inProcess)
        let b = world.replica("B")
        _ = try world.textConflict(b)
        let resolution: JSONValue = ["text": "I love both", "complete": false]
        try b.writeResolution("x", resolution)
        world.raw("PATCH", "/tables/todoitem/x", body: ["complete": true])
        let v3 = try #require(world.version("x"))
        b.expect(3, "pull")
        let conflict = try #require(b.conflicts.first)
        #expect(b.conflicts.count == 1)
        #expect(conflict["server"]?["ms_version"]?.stringValue == v3)
        #expect(conflict["server"]?["complete"] == true)
        #expect(conflict["resolved"] == resolution)
        #expect(conflict["fields"] == ["text"])
        #expect(b.item("x")?["text"] == "b", "the item waits for the resolution")

        b.expect(0, "resolve", "x")
        let op = try #require(b.operations.first)
        #expect(op["base"]?["ms_version"]?.stringValue == v3)
        #expect(op["item"] == ["id": "x", "text": "I love both", "complete": false])
        world.resetLog()
        b.expect(0, "push")
        #expect(world.writes().map { "\($0.method) \($0.status)" } == ["PATCH 200"])
        #expect(world.writes().first?.headers["If-Match"] == "\"\(v3)\"")
        #expect(world.row("x")?["text"] == "I love both")
        #expect(world.row("x")?["complete"] == false)
    }

    @Test("76: a rejection resolved by hand without the bad field is inserted by the next push")
    func rejectionResolvedByHand() throws {
        let world = try SyncWorld(wire: .inProcess)
        world.raw("POST", "/tables/todoitem", body: ["id": "seed", "priority": 1])  // `priority` is a number column
        let b = world.replica("B")
        b.expect(0, "add", "bad", "--id", "x", "--set", "priority=\"high\"")
        b.expect(3, "push")
        let conflict = try #require(b.conflicts.first)
        #expect(conflict["reason"] == "rejected")
        #expect(conflict["status"] == 400)
        try b.writeResolution("x", ["text": "bad", "complete": false, "priority": nil])  // null: dropped on purpose (issue 15 item 7)
        b.expect(0, "resolve", "x")
        let op = try #require(b.operations.first)
        #expect(op["kind"] == "insert")
        #expect(op["item"] == ["id": "x", "text": "bad", "complete": false])
        #expect(b.item("x")?.keys.contains("priority") == false)

        world.resetLog()
        b.expect(0, "push")
        let writes = world.writes()
        #expect(writes.map { "\($0.method) \($0.path) \($0.status)" } == ["POST /tables/todoitem 201"])
        #expect(writes.first?.json == ["id": "x", "text": "bad", "complete": false])
        let row = try #require(world.row("x"))
        #expect(row["text"] == "bad")
        #expect((row["priority"] ?? .null) == .null)
        #expect(b.item("x")?["ms_version"] == row["version"])
        #expect(b.operations.isEmpty && b.conflicts.isEmpty)
    }
}
