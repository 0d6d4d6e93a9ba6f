import Testing
import TodoModel
import TodoTestSupport

/// sync.md §12, collapse and queue order as the server sees them: scenarios 2, 3, 4, 13, 17.
@Suite struct PushCollapseTests {
    @Test("2: insert + delete sends nothing and leaves a receipt holding the item") func insertDelete() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        a.expect(0, "add", "a", "--id", "x", "--set", "priority=2")
        a.expect(0, "rm", "x")
        world.resetLog()
        let push = a.expect(0, "push")
        #expect(world.requests().isEmpty)
        #expect(push.out.contains("nothing to push"), "\(push)")
        #expect(a.operations.isEmpty)
        #expect(world.row("x") == nil)
        let receipt = try #require(a.receipts.last)
        #expect(receipt["decision"] == "collapse")
        #expect(receipt["rule"] == "insert+delete")
        #expect(receipt["kept"] == .null)
        let lost = try #require(receipt["lost"]?["client"]?.objectValue)
        #expect(lost["text"] == "a")
        #expect(lost["priority"] == 2)
    }

    @Test("3: update + update sends one PATCH with the last text and If-Match of v1") func updateUpdate() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        let v1 = try #require(world.synced(a, "x"))
        a.expect(0, "edit", "x", "--text", "b")
        a.expect(0, "edit", "x", "--text", "c")
        #expect(a.operations.count == 1)
        a.expect(0, "push")
        let writes = world.writes()
        #expect(writes.count == 1)
        let patch = try #require(writes.first)
        #expect(patch.method == "PATCH")
        #expect(patch.path == "/tables/todoitem/x")
        #expect(patch.json?["text"] == "c")
        #expect(patch.headers["If-Match"] == "\"\(v1)\"")
        #expect(world.row("x")?["text"] == "c")
        #expect(a.item("x")?["ms_version"]?.stringValue == world.version("x"))
        #expect(a.operations.isEmpty)
    }

    @Test("4: update + delete sends one DELETE with If-Match of v1; the op keeps its sequence") func updateDelete() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        let v1 = try #require(world.synced(a, "x"))
        a.expect(0, "edit", "x", "--text", "b")
        let sequence = try #require(a.operations.first?["sequence"])
        a.expect(0, "rm", "x")
        let op = try #require(a.operations.first)
        #expect(a.operations.count == 1)
        #expect(op["kind"] == "delete")
        #expect(op["sequence"] == sequence)
        a.expect(0, "push")
        let writes = world.writes()
        #expect(writes.count == 1)
        #expect(writes.first?.method == "DELETE")
        #expect(writes.first?.path == "/tables/todoitem/x")
        #expect(writes.first?.headers["If-Match"] == "\"\(v1)\"")
        #expect(world.row("x")?["deleted"] == true)
        #expect(a.operations.isEmpty)
        #expect(a.item("x") == nil)
    }

    @Test("13: a delete that collapsed into an update keeps its place: DELETE x before POST y") func queueOrder() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        world.synced(a, "x")
        a.expect(0, "edit", "x", "--text", "b")
        a.expect(0, "add", "y", "--id", "y")
        a.expect(0, "rm", "x")
        #expect(a.operations.map { $0["kind"] } == ["delete", "insert"])
        a.expect(0, "push", "--jobs", "1")
        let writes = world.writes()
        #expect(writes.map(\.method) == ["DELETE", "POST"])
        #expect(writes.first?.path == "/tables/todoitem/x")
        #expect(writes.last?.json?["id"] == "y")
        #expect(a.operations.isEmpty)
    }

    @Test("17: ops on two tables survive a restart and go in sequence order") func orderAcrossTables() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        a.expect(0, "add", "one", "--id", "p1")
        a.expect(0, "add", "two", "--id", "q1", "--table", "other")
        a.expect(0, "add", "three", "--id", "p2")
        // Every command is a fresh start of the store; the queue lives in files only.
        #expect(a.operations.map { $0["sequence"] } == [1, 2, 3])
        let push = a.expect(0, "push", "--jobs", "1")
        #expect(push.out.contains("pushed 3 operations"), "\(push)")
        let writes = world.writes()
        #expect(writes.map(\.path) == ["/tables/todoitem", "/tables/other", "/tables/todoitem"])
        #expect(writes.map { $0.json?["id"] } == ["p1", "q1", "p2"])
        #expect(a.operations.isEmpty)
        #expect(world.row("q1", table: "other")?["text"] == "two")
        #expect(a.item("q1", table: "other")?["ms_version"] != nil)
    }
}
