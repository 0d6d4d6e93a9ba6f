import Testing
import TodoModel
import TodoTestSupport

/// First push and pull scenarios of sync.md §12 over the real server.
@Suite struct PushBasicsTests {
    @Test("1: insert + update sends one POST with the final copy") func insertUpdate() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        a.expect(0, "add", "a", "--id", "x")
        a.expect(0, "edit", "x", "--text", "b")
        world.resetLog()
        a.expect(0, "push")
        let writes = world.writes()
        #expect(writes.count == 1)
        #expect(writes.first?.method == "POST")
        #expect(writes.first?.json?["text"] == "b")
        #expect(writes.first?.json?["id"] == "x")
        #expect(a.receipts.filter { $0["decision"] == "collapse" }.count == 1)
    }

    @Test("18: the POST body has no system property; the item takes them from the response") func insertBody() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        a.expect(0, "add", "milk", "--id", "m")
        world.resetLog()
        a.expect(0, "push")
        let body = try #require(world.writes().first?.json?.objectValue)
        for name in body.keys { #expect(!name.hasPrefix("__") && !name.lowercased().hasPrefix("ms_") && !["createdAt", "updatedAt", "version", "deleted"].contains(name)) }
        let item = try #require(a.item("m"))
        let row = try #require(world.row("m"))
        #expect(item["ms_version"] == row["version"])
        #expect(item["ms_createdAt"] == row["createdAt"])
        #expect(item["ms_updatedAt"] == row["updatedAt"])
        #expect(a.operations.isEmpty)
    }

    @Test("38, 39: a first pull pages to the end; the next pull brings only new changes") func pullPages() throws {
        let world = try SyncWorld(wire: .inProcess)
        for i in 0..<120 { world.raw("POST", "/tables/todoitem", body: ["id": .string("r\(i)"), "text": .string("row \(i)")]) }
        let b = world.replica("B")
        world.resetLog()
        let pull = b.expect(0, "pull")
        #expect(pull.out.contains("120 rows"), "\(pull)")
        let pages = world.requests().filter { $0.method == "GET" }
        #expect(pages.count == 4)
        #expect(b.records("tables/todoitem/items").count == 120)
        world.raw("PATCH", "/tables/todoitem/r5", body: ["text": "changed"])
        world.raw("POST", "/tables/todoitem", body: ["id": "new", "text": "new"])
        world.resetLog()
        let again = b.expect(0, "pull", "--json")
        let json = try JSONValue.parse(again.out)
        #expect(json["queries"]?.arrayValue?.first?["received"] == 2)
        #expect(world.requests().first?.target.contains("%24filter") == true || world.requests().first?.target.contains("$filter") == true)
        #expect(b.item("r5")?["text"] == "changed")
    }

    @Test("22: the server down stops the push with exit 4; nothing is lost") func serverDown() throws {
        // A stopped server refuses connections: only a socket can.
        let world = try SyncWorld(wire: .socket)
        let a = world.replica("A")
        a.expect(0, "add", "one", "--id", "x1")
        a.expect(0, "add", "two", "--id", "x2")
        a.expect(0, "add", "three", "--id", "x3")
        world.server.stop()
        let push = a.expect(4, "push")
        #expect(push.err.contains("cannot connect"), "\(push)")
        #expect(a.operations.count == 3)
        #expect(a.operations.allSatisfy { $0["attempted"] == false })
    }
}
