import Testing
import TodoModel
import TodoTestSupport

/// sync.md §12 scenario 68: the same id added on two replicas, and each way of settling it.
@Suite struct ResolveInsertSyncTests {
    /// A adds x and pushes first; B adds its own x and pushes: a 409, "added on both sides".
    /// Returns A's version of x; the request log starts afresh afterwards.
    func addedOnBothSides(_ world: SyncWorld, a aArgs: [String], b bArgs: [String],
                          sourceLocation: SourceLocation = #_sourceLocation) throws -> (a: CLIHarness, b: CLIHarness, version: String) {
        let a = world.replica("A"), b = world.replica("B")
        #expect(a.run(["add"] + aArgs + ["--id", "x"]).code == 0, sourceLocation: sourceLocation)
        a.expect(0, "push", sourceLocation: sourceLocation)
        let version = try #require(world.version("x"), sourceLocation: sourceLocation)
        #expect(b.run(["add"] + bArgs + ["--id", "x"]).code == 0, sourceLocation: sourceLocation)
        world.resetLog()
        b.expect(3, "push", sourceLocation: sourceLocation)
        #expect(world.writes().map { "\($0.method) \($0.status)" } == ["POST 409"], sourceLocation: sourceLocation)
        let conflict = try #require(b.conflicts.first, sourceLocation: sourceLocation)
        #expect(conflict["status"] == 409, sourceLocation: sourceLocation)
        #expect(conflict["operation"]?["kind"] == "insert", sourceLocation: sourceLocation)
        #expect(conflict["server"]?["ms_version"]?.stringValue == version, sourceLocation: sourceLocation)
        #expect(b.conflictKinds["x"] == "added on both sides", sourceLocation: sourceLocation)
        world.resetLog()
        return (a, b, version)
    }

    @Test("68: added on both sides, use client: an update on A's version; the server holds B's copy")
    func useClient() throws {
        let world = try SyncWorld(wire: .inProcess)
        let (a, b, va) = try addedOnBothSides(world, a: ["from A", "--set", "note=\"only A\""], b: ["from B"])
        b.expect(0, "resolve", "x", "--use-client")
        let op = try #require(b.operations.first)
        #expect(op["kind"] == "update")
        #expect(op["base"]?["ms_version"]?.stringValue == va)
        b.expect(0, "push")
        let writes = world.writes()
        #expect(writes.map { "\($0.method) \($0.path) \($0.status)" } == ["PATCH /tables/todoitem/x 200"])
        #expect(writes.first?.headers["If-Match"] == "\"\(va)\"")
        // Exactly B's copy: the field only A's copy had is cleared.
        #expect(writes.first?.json == ["id": "x", "text": "from B", "complete": false, "note": .null])
        let row = try #require(world.row("x"))
        #expect(row["text"] == "from B")
        #expect((row["note"] ?? .null) == .null)
        #expect(b.operations.isEmpty && b.conflicts.isEmpty)
        a.expect(0, "pull")
        #expect(a.item("x")?["text"] == "from B")
        #expect(a.item("x")?.keys.contains("note") == false)
    }

    @Test("68: added on both sides, use server: B holds A's copy and sends nothing")
    func useServer() throws {
        let world = try SyncWorld(wire: .inProcess)
        let (_, b, va) = try addedOnBothSides(world, a: ["from A"], b: ["from B"])
        b.expect(0, "resolve", "x", "--use-server")
        #expect(b.item("x")?["text"] == "from A")
        #expect(b.item("x")?["ms_version"]?.stringValue == va)
        #expect(b.operations.isEmpty)
        #expect(b.receipts.last?["lost"]?["client"] == ["text": "from B"])
        b.expect(0, "push")
        #expect(world.writes().isEmpty)
        #expect(world.version("x") == va)
    }

    @Test("68: added on both sides, merge fails listing text and changes nothing")
    func mergeClash() throws {
        let world = try SyncWorld(wire: .inProcess)
        let (_, b, _) = try addedOnBothSides(world, a: ["from A"], b: ["from B"])
        let before = b.snapshot()
        let merge = b.expect(1, "resolve", "x", "--merge")
        #expect(merge.err.contains("text"), "\(merge)")
        #expect(b.snapshot() == before)
    }

    @Test("68: A added {text: a}, B {text: a, note: n}: merge makes an update on A's version that adds note")
    func mergeAddsNote() throws {
        let world = try SyncWorld(wire: .inProcess)
        let (_, b, va) = try addedOnBothSides(world, a: ["a"], b: ["a", "--set", "note=\"n\""])
        #expect(b.conflicts.first?["fields"] == [])
        b.expect(0, "resolve", "x", "--merge")
        let op = try #require(b.operations.first)
        #expect(op["kind"] == "update")
        #expect(op["base"]?["ms_version"]?.stringValue == va)
        #expect(op["item"] == ["id": "x", "text": "a", "complete": false, "note": "n"])
        b.expect(0, "push")
        let writes = world.writes()
        #expect(writes.map { "\($0.method) \($0.status)" } == ["PATCH 200"])
        #expect(writes.first?.headers["If-Match"] == "\"\(va)\"")
        let row = try #require(world.row("x"))
        #expect(row["note"] == "n")
        #expect(row["text"] == "a")
        #expect(b.operations.isEmpty && b.conflicts.isEmpty)
    }

    @Test("68, found by pull: the added-on-both-sides conflict merges the same way and the PATCH adds note")
    func mergeAfterPull() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A"), b = world.replica("B")
        a.expect(0, "add", "a", "--id", "x")
        a.expect(0, "push")
        let va = try #require(world.version("x"))
        b.expect(0, "add", "a", "--id", "x", "--set", "note=\"n\"")
        b.expect(3, "pull")
        #expect(b.conflicts.first?["detectedBy"] == "pull")
        #expect(b.conflictKinds["x"] == "added on both sides")
        b.expect(0, "resolve", "x", "--merge")
        world.resetLog()
        b.expect(0, "push")
        #expect(world.writes().map { "\($0.method) \($0.status)" } == ["PATCH 200"])
        #expect(world.writes().first?.headers["If-Match"] == "\"\(va)\"")
        #expect(world.row("x")?["note"] == "n")
        #expect(b.operations.isEmpty && b.conflicts.isEmpty)
    }
}
