import Testing
import TodoModel
import TodoServer
import TodoTestSupport

/// sync.md §12, conflicts where one side deleted the item, settled and published over the real
/// server: scenarios 69, 70, 71, and 97's `--use-client` on G1 (the G2 run is in
/// MultiReplicaTests); 69 and 71 also as pull finds them.
@Suite struct ResolveDeletionSyncTests {
    @Test("69: use client over a soft delete: an undelete with If-Match of the deleted version, then a PATCH")
    func restoreOverASoftDelete() throws {
        let world = try SyncWorld(wire: .inProcess)
        let b = world.replica("B")
        world.synced(b, "x")
        world.raw("DELETE", "/tables/todoitem/x")  // another client deletes x
        let deleted = try #require(world.version("x"))
        b.expect(0, "edit", "x", "--text", "b", "--set", "note=\"n\"")
        b.expect(3, "push")
        let conflict = try #require(b.conflicts.first)
        #expect(conflict["server"]?["ms_deleted"] == true)
        #expect(conflict["server"]?["ms_version"]?.stringValue == deleted)
        #expect(b.conflictKinds["x"] == "changed here, deleted there")

        b.expect(0, "resolve", "x", "--use-client")
        let op = try #require(b.operations.first)
        #expect(op["kind"] == "update")
        #expect(op["restore"] == true)
        #expect(op["base"]?["ms_version"]?.stringValue == deleted)

        world.resetLog()
        let answers = world.keepAnswers()
        b.expect(0, "push")
        let writes = world.writes()
        #expect(writes.map { "\($0.method) \($0.path) \($0.status)" } == ["POST /tables/todoitem/x 201", "PATCH /tables/todoitem/x 200"])
        #expect(writes.first?.headers["If-Match"] == "\"\(deleted)\"")
        #expect(writes.first?.body.isEmpty == true, "an undelete has no body")
        let undeleted = try #require(answers.bodies("POST /tables/todoitem/x").first?["version"]?.stringValue)
        #expect(writes.last?.headers["If-Match"] == "\"\(undeleted)\"", "the PATCH goes on the undelete's version")
        #expect(writes.last?.json == ["id": "x", "text": "b", "complete": false, "note": "n"])
        let row = try #require(world.row("x"))
        #expect(row["deleted"] == false)
        #expect(row["text"] == "b")
        #expect(row["note"] == "n")
        #expect(b.item("x")?["ms_version"] == row["version"])
        #expect(b.operations.isEmpty && b.conflicts.isEmpty)
    }

    @Test("70: use client over a hard delete (server copy null): a POST recreates x")
    func reinsertOverAHardDelete() throws {
        let world = try SyncWorld(wire: .inProcess)
        try world.storage.createTable("chores", softDelete: false)  // this table forgets deleted rows
        let b = world.replica("B")
        world.synced(b, "x", table: "chores")
        world.raw("DELETE", "/tables/chores/x")
        #expect(world.row("x", table: "chores") == nil)
        b.expect(0, "edit", "x", "--table", "chores", "--text", "b")
        b.expect(3, "push")
        let conflict = try #require(b.conflicts.first)
        #expect(conflict["server"] == .null)
        #expect(conflict["status"] == 404)
        #expect(conflict["operation"]?["kind"] == "update")

        b.expect(0, "resolve", "x", "--table", "chores", "--use-client")
        let op = try #require(b.operations.first)
        #expect(op["kind"] == "insert")
        #expect(op["base"] == .null)
        world.resetLog()
        b.expect(0, "push")
        let writes = world.writes()
        #expect(writes.map { "\($0.method) \($0.path) \($0.status)" } == ["POST /tables/chores 201"])
        #expect(writes.first?.json == ["id": "x", "text": "b", "complete": false])
        let row = try #require(world.row("x", table: "chores"))
        #expect(row["text"] == "b")
        #expect(b.item("x", table: "chores")?["ms_version"] == row["version"])
        #expect(b.operations.isEmpty && b.conflicts.isEmpty)
    }

    /// x synced (v1), deleted by B, changed to "c" by another client (v2): B's DELETE meets a 412.
    func deletedHereChangedThere(_ world: SyncWorld, _ b: CLIHarness) throws -> String {
        world.synced(b, "x")
        b.expect(0, "rm", "x")
        world.raw("PATCH", "/tables/todoitem/x", body: ["text": "c"])
        let v2 = try #require(world.version("x"))
        b.expect(3, "push")
        let conflict = try #require(b.conflicts.first)
        #expect(conflict["status"] == 412)
        #expect(conflict["operation"]?["kind"] == "delete")
        #expect(conflict["client"] == .null)
        #expect(conflict["server"]?["ms_version"]?.stringValue == v2)
        #expect(b.conflictKinds["x"] == "deleted here, changed there")
        world.resetLog()
        return v2
    }

    @Test("71: deleted here, changed there; use client sends a DELETE with If-Match v2")
    func deleteWins() throws {
        let world = try SyncWorld(wire: .inProcess)
        let b = world.replica("B")
        let v2 = try deletedHereChangedThere(world, b)
        b.expect(0, "resolve", "x", "--use-client")
        #expect(b.receipts.last?["lost"]?["server"] == ["text": "c", "complete": false])
        b.expect(0, "push")
        let writes = world.writes()
        #expect(writes.map { "\($0.method) \($0.path) \($0.status)" } == ["DELETE /tables/todoitem/x 200"])
        #expect(writes.first?.headers["If-Match"] == "\"\(v2)\"")
        #expect(world.row("x")?["deleted"] == true)
        #expect(b.item("x") == nil)
        #expect(b.operations.isEmpty && b.conflicts.isEmpty)
    }

    @Test("71: deleted here, changed there; use server makes x reappear locally as v2")
    func changeWins() throws {
        let world = try SyncWorld(wire: .inProcess)
        let b = world.replica("B")
        let v2 = try deletedHereChangedThere(world, b)
        b.expect(0, "resolve", "x", "--use-server")
        let item = try #require(b.item("x"))
        #expect(item["text"] == "c")
        #expect(item["ms_version"]?.stringValue == v2)
        #expect(b.operations.isEmpty && b.conflicts.isEmpty)
        b.expect(0, "push")
        #expect(world.writes().isEmpty)
    }

    @Test("97 on G1: the undelete answers 200, and A pulls x back with B's version text")
    func deletedOnOneSideEditedOnTheOtherG1() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A", protocol: "mobile-services"), b = world.replica("B", protocol: "mobile-services")
        a.expect(0, "add", "a", "--id", "x")
        a.expect(0, "push")
        b.expect(0, "pull")
        a.expect(0, "rm", "x")
        a.expect(0, "push")
        b.expect(0, "edit", "x", "--text", "from B")
        b.expect(3, "push")
        #expect(b.conflictKinds["x"] == "changed here, deleted there")
        b.expect(0, "resolve", "x", "--use-client")
        world.resetLog()
        b.expect(0, "push")
        #expect(world.writes().map { "\($0.method) \($0.path) \($0.status)" } == ["POST /tables/todoitem/x 200", "PATCH /tables/todoitem/x 200"])
        #expect(world.row("x")?["text"] == "from B")
        #expect(world.row("x")?["deleted"] == false)
        a.expect(0, "pull")
        #expect(a.item("x")?["text"] == "from B")
        #expect(a.item("x")?["ms_version"] == b.item("x")?["ms_version"])
    }

    @Test("69, found by pull: a pending edit meets a soft-deleted row; use client restores it on push")
    func restoreAfterPull() throws {
        let world = try SyncWorld(wire: .inProcess)
        let b = world.replica("B")
        world.synced(b, "x")
        b.expect(0, "edit", "x", "--text", "b")
        world.raw("DELETE", "/tables/todoitem/x")
        let deleted = try #require(world.version("x"))
        b.expect(3, "pull")
        #expect(b.conflicts.first?["detectedBy"] == "pull")
        #expect(b.conflictKinds["x"] == "changed here, deleted there")
        b.expect(0, "resolve", "x", "--use-client")
        world.resetLog()
        b.expect(0, "push")
        #expect(world.writes().map { "\($0.method) \($0.status)" } == ["POST 201", "PATCH 200"])
        #expect(world.writes().first?.headers["If-Match"] == "\"\(deleted)\"")
        #expect(world.row("x")?["text"] == "b")
        #expect(world.row("x")?["deleted"] == false)
        b.expect(0, "pull")
        #expect(b.conflicts.isEmpty && b.operations.isEmpty)
        #expect(b.item("x")?["ms_version"] == world.row("x")?["version"])
    }

    @Test("71, found by pull: a pending delete meets a changed row; use client deletes on v2")
    func deleteWinsAfterPull() throws {
        let world = try SyncWorld(wire: .inProcess)
        let b = world.replica("B")
        world.synced(b, "x")
        b.expect(0, "rm", "x")
        world.raw("PATCH", "/tables/todoitem/x", body: ["text": "c"])
        let v2 = try #require(world.version("x"))
        b.expect(3, "pull")
        #expect(b.conflictKinds["x"] == "deleted here, changed there")
        b.expect(0, "resolve", "x", "--use-client")
        world.resetLog()
        b.expect(0, "push")
        #expect(world.writes().map { "\($0.method) \($0.status)" } == ["DELETE 200"])
        #expect(world.writes().first?.headers["If-Match"] == "\"\(v2)\"")
        #expect(world.row("x")?["deleted"] == true)
    }

    /// Found by the convergence simulation (TodoSimulationTests, seed 5): when someone else
    /// restored x first, the undelete's 412 recorded "changed on both sides" with `fields: []`
    /// although the text clashed, so the file promised a merge that `resolve --merge` refused.
    @Test("69, restored by someone else first: the undelete's 412 lists the clashing fields")
    func restoreMeetsAnotherRestore() throws {
        let world = try SyncWorld(wire: .inProcess)
        let b = world.replica("B")
        world.synced(b, "x")
        world.raw("DELETE", "/tables/todoitem/x")
        b.expect(0, "edit", "x", "--text", "b")
        b.expect(3, "push")
        b.expect(0, "resolve", "x", "--use-client")
        world.raw("POST", "/tables/todoitem/x")  // another client restores x, then edits its text
        world.raw("PATCH", "/tables/todoitem/x", body: ["text": "c"])
        b.expect(3, "push")
        let conflict = try #require(b.conflicts.first)
        #expect(conflict["status"] == 412)
        #expect(conflict["server"]?["ms_deleted"] == false)
        #expect(b.conflictKinds["x"] == "changed on both sides")
        #expect(conflict["fields"] == ["text"])
        let merge = b.expect(1, "resolve", "x", "--merge")
        #expect(merge.err.contains("text"))
    }
}
