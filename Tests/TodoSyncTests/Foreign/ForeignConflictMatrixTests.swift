import Testing
import TodoModel
import TodoTestSupport

/// Issue 15 item 3: the conflict scenarios of sync.md §12 against every server profile of
/// `ForeignServer` (ours, Node, Mobile Services, .NET). Each must end with the same user-visible
/// outcome as against our own server: the same exit statuses, conflict kinds and fields, receipts,
/// and the same data on the server and in the replicas. Nothing may be called a replay that was
/// not one.
@Suite struct ForeignConflictMatrixTests {
    /// A adds x and pushes; B adds its own x and pushes: a conflict "added on both sides".
    func addedOnBothSides(_ world: SyncWorld, a aArgs: [String], b bArgs: [String],
                          sourceLocation: SourceLocation = #_sourceLocation) throws -> (a: CLIHarness, b: CLIHarness) {
        let a = world.replica("A"), b = world.replica("B")
        a.expect(0, ["add"] + aArgs + ["--id", "x"], sourceLocation: sourceLocation)
        a.expect(0, "push", sourceLocation: sourceLocation)
        b.expect(0, ["add"] + bArgs + ["--id", "x"], sourceLocation: sourceLocation)
        let push = b.expect(3, "push", sourceLocation: sourceLocation)
        #expect(push.out.contains("conflict (409): added on both sides"), "\(push)", sourceLocation: sourceLocation)
        #expect(b.conflictKinds == ["x": "added on both sides"], sourceLocation: sourceLocation)
        let conflict = try #require(b.conflicts.first, sourceLocation: sourceLocation)
        #expect(conflict["client"]?["text"] == .string(bArgs[0]), sourceLocation: sourceLocation)
        #expect(conflict["server"]?["text"] == .string(aArgs[0]), sourceLocation: sourceLocation)
        #expect(conflict["server"]?["ms_version"]?.stringValue == world.version("x"), sourceLocation: sourceLocation)
        #expect(b.receipts.isEmpty, "no replay, no receipt: \(b.receipts)", sourceLocation: sourceLocation)
        #expect(b.operations.map { $0["kind"] } == ["insert"], sourceLocation: sourceLocation)
        world.resetLog()
        return (a, b)
    }

    @Test("68: added on both sides is a conflict, never a replay; --use-client publishes B's copy",
          arguments: ForeignServer.all)
    func addedOnBothSidesUseClient(_ server: ForeignServer) throws {
        let world = try SyncWorld(foreign: server)
        let (a, b) = try addedOnBothSides(world, a: ["from A"], b: ["from B"])
        #expect(b.conflicts.first?["fields"] == ["text"])
        b.expect(0, "resolve", "x", "--use-client")
        b.expect(0, "push")
        #expect(world.row("x")?["text"] == "from B")
        #expect(b.operations.isEmpty && b.conflicts.isEmpty)
        a.expect(0, "pull")
        #expect(a.item("x")?["text"] == "from B")
    }

    @Test("68: added on both sides, --use-server: B holds A's copy and sends nothing", arguments: ForeignServer.all)
    func addedOnBothSidesUseServer(_ server: ForeignServer) throws {
        let world = try SyncWorld(foreign: server)
        let (_, b) = try addedOnBothSides(world, a: ["from A"], b: ["from B"])
        b.expect(0, "resolve", "x", "--use-server")
        #expect(b.item("x")?["text"] == "from A")
        #expect(b.receipts.last?["lost"]?["client"] == ["text": "from B"])
        b.expect(0, "push")
        #expect(world.writes().isEmpty)
        #expect(world.row("x")?["text"] == "from A")
    }

    @Test("68: A added {text: a}, B {text: a, note: n}: --merge makes an update that adds note", arguments: ForeignServer.all)
    func addedOnBothSidesMerge(_ server: ForeignServer) throws {
        let world = try SyncWorld(foreign: server)
        let (_, b) = try addedOnBothSides(world, a: ["a"], b: ["a", "--set", "note=\"n\""])
        #expect(b.conflicts.first?["fields"] == [])
        b.expect(0, "resolve", "x", "--merge")
        b.expect(0, "push")
        #expect(world.row("x")?["note"] == "n")
        #expect(world.row("x")?["text"] == "a")
        #expect(b.operations.isEmpty && b.conflicts.isEmpty)
    }

    @Test("§4.6.2: the same item added on both sides with equal content is one insert, replayed", arguments: ForeignServer.all)
    func addedOnBothSidesEqual(_ server: ForeignServer) throws {
        let world = try SyncWorld(foreign: server)
        let a = world.replica("A"), b = world.replica("B")
        a.expect(0, "add", "same", "--id", "x")
        a.expect(0, "push")
        b.expect(0, "add", "same", "--id", "x")
        b.expect(0, "push")
        #expect(b.receipts.map { "\($0["decision"]!.stringValue!) \($0["rule"]!.stringValue!)" } == ["replay insert-exists"])
        #expect(b.item("x")?["ms_version"]?.stringValue == world.version("x"))
        #expect(b.operations.isEmpty && b.conflicts.isEmpty)
    }

    @Test("a sealed insert whose id the server holds soft-deleted: added here, deleted there", arguments: ForeignServer.all)
    func sealedInsertMeetsADeletedRow(_ server: ForeignServer) throws {
        let world = try SyncWorld(foreign: server)
        let b = world.replica("B")
        b.expect(0, "add", "mine", "--id", "x")
        b.sealOperations()
        world.raw("POST", "/tables/todoitem", body: ["id": "x", "text": "mine", "complete": false])
        world.raw("DELETE", "/tables/todoitem/x")
        b.expect(3, "push")
        #expect(b.conflictKinds == ["x": "added here, deleted there"])
        #expect(b.conflicts.first?["server"]?["ms_deleted"] == true)
        #expect(b.receipts.isEmpty)
        #expect(world.row("x")?["deleted"] == true, "nothing was sent over the deleted row")
    }

    @Test("a sealed insert whose id someone else took with other content: added on both sides", arguments: ForeignServer.all)
    func sealedInsertMeetsAnotherRow(_ server: ForeignServer) throws {
        let world = try SyncWorld(foreign: server)
        let b = world.replica("B")
        b.expect(0, "add", "mine", "--id", "x")
        b.sealOperations()
        world.raw("POST", "/tables/todoitem", body: ["id": "x", "text": "theirs"])
        b.expect(3, "push")
        #expect(b.conflictKinds == ["x": "added on both sides"])
        #expect(b.receipts.isEmpty)
        #expect(world.row("x")?["text"] == "theirs")
    }

    @Test("69 (issue 15, loss 2): edited here, soft-deleted there, --use-client: the server holds the client copy again",
          arguments: ForeignServer.all)
    func useClientAfterAServerDelete(_ server: ForeignServer) throws {
        let world = try SyncWorld(foreign: server)
        let b = world.replica("B")
        world.synced(b, "x")
        world.raw("DELETE", "/tables/todoitem/x")
        b.expect(0, "edit", "x", "--text", "b", "--set", "note=\"n\"")
        b.expect(3, "push")
        #expect(b.conflictKinds == ["x": "changed here, deleted there"])
        #expect(b.conflicts.first?["server"]?["ms_deleted"] == true)
        b.expect(0, "resolve", "x", "--use-client")
        b.expect(0, "push")
        let row = try #require(world.row("x"))
        #expect(row["deleted"] == false)
        #expect(row["text"] == "b")
        #expect(row["note"] == "n")
        #expect(!b.receipts.contains { $0["decision"] == "replay" }, "\(b.receipts)")
        #expect(b.operations.isEmpty && b.conflicts.isEmpty)
        #expect(b.item("x")?["ms_version"] == row["version"])
    }

    @Test("71: deleted here, changed there; --use-client deletes it on the server", arguments: ForeignServer.all)
    func deletedHereChangedThere(_ server: ForeignServer) throws {
        let world = try SyncWorld(foreign: server)
        let b = world.replica("B")
        world.synced(b, "x")
        world.raw("PATCH", "/tables/todoitem/x", body: ["text": "c"])
        b.expect(0, "rm", "x")
        b.expect(3, "push")
        #expect(b.conflictKinds == ["x": "deleted here, changed there"])
        b.expect(0, "resolve", "x", "--use-client")
        b.expect(0, "push")
        #expect(world.row("x")?["deleted"] == true)
        #expect(b.operations.isEmpty && b.conflicts.isEmpty)
    }

    /// x synced, the server's text changed to "c" by another client, B's text edited to "b".
    func textConflict(_ world: SyncWorld, sourceLocation: SourceLocation = #_sourceLocation) throws -> CLIHarness {
        let b = world.replica("B")
        world.synced(b, "x")
        world.raw("PATCH", "/tables/todoitem/x", body: ["text": "c"])
        b.expect(0, "edit", "x", "--text", "b", sourceLocation: sourceLocation)
        b.expect(3, "push", sourceLocation: sourceLocation)
        #expect(b.conflictKinds == ["x": "changed on both sides"], sourceLocation: sourceLocation)
        #expect(b.conflicts.first?["fields"] == ["text"], sourceLocation: sourceLocation)
        #expect(b.conflicts.first?["server"]?["ms_version"]?.stringValue == world.version("x"), sourceLocation: sourceLocation)
        world.resetLog()
        return b
    }

    @Test("59, 60: changed on both sides; --use-client publishes the client text", arguments: ForeignServer.all)
    func changedOnBothSidesUseClient(_ server: ForeignServer) throws {
        let world = try SyncWorld(foreign: server)
        let b = try textConflict(world)
        b.expect(0, "resolve", "x", "--use-client")
        b.expect(0, "push")
        #expect(world.row("x")?["text"] == "b")
        #expect(b.receipts.last?["lost"]?["server"] == ["text": "c"])
        #expect(b.operations.isEmpty && b.conflicts.isEmpty)
    }

    @Test("61: changed on both sides; --use-server keeps the server text and sends nothing", arguments: ForeignServer.all)
    func changedOnBothSidesUseServer(_ server: ForeignServer) throws {
        let world = try SyncWorld(foreign: server)
        let b = try textConflict(world)
        b.expect(0, "resolve", "x", "--use-server")
        #expect(b.item("x")?["text"] == "c")
        b.expect(0, "push")
        #expect(world.writes().isEmpty)
    }

    @Test("74: a pull that brings the client's own text closes the conflict (absorb)", arguments: ForeignServer.all)
    func refreshClosesTheConflict(_ server: ForeignServer) throws {
        let world = try SyncWorld(foreign: server)
        let b = try textConflict(world)
        world.raw("PATCH", "/tables/todoitem/x", body: ["text": "b"])
        b.expect(0, "pull")
        #expect(b.conflicts.isEmpty && b.operations.isEmpty)
        #expect(b.receipts.last?["decision"] == "absorb")
        #expect(b.item("x")?["ms_version"]?.stringValue == world.version("x"))
    }

    @Test("28: disjoint changes merge on push and the PATCH is sent again", arguments: ForeignServer.all)
    func autoMergeOnPush(_ server: ForeignServer) throws {
        let world = try SyncWorld(foreign: server)
        let b = world.replica("B")
        world.synced(b, "x")
        world.raw("PATCH", "/tables/todoitem/x", body: ["complete": true])
        b.expect(0, "edit", "x", "--text", "b")
        b.expect(0, "push")
        #expect(world.row("x")?["text"] == "b")
        #expect(world.row("x")?["complete"] == true)
        #expect(b.receipts.map { $0["decision"] } == ["merge"])
        #expect(b.item("x")?["complete"] == true)
        #expect(b.operations.isEmpty && b.conflicts.isEmpty)
    }

    @Test("29: an identical change on the server counts as applied", arguments: ForeignServer.all)
    func identicalChange(_ server: ForeignServer) throws {
        let world = try SyncWorld(foreign: server)
        let b = world.replica("B")
        world.synced(b, "x")
        world.raw("PATCH", "/tables/todoitem/x", body: ["text": "b"])
        b.expect(0, "edit", "x", "--text", "b")
        b.expect(0, "push")
        #expect(b.receipts.map { "\($0["decision"]!.stringValue!) \($0["rule"]!.stringValue!)" } == ["replay update-applied"])
        #expect(b.item("x")?["ms_version"]?.stringValue == world.version("x"))
    }

    @Test("21, 56: a delete of an item the server already deleted succeeds, on push and on pull", arguments: ForeignServer.all)
    func bothDeleted(_ server: ForeignServer) throws {
        let world = try SyncWorld(foreign: server)
        let b = world.replica("B")
        world.synced(b, "x")
        world.synced(b, "y")
        world.raw("DELETE", "/tables/todoitem/x")
        world.raw("DELETE", "/tables/todoitem/y")
        b.expect(0, "rm", "x")
        b.expect(0, "rm", "y")
        b.expect(0, "pull", "--filter", "id eq 'y'")
        b.expect(0, "push")
        #expect(b.operations.isEmpty && b.conflicts.isEmpty)
        #expect(world.row("x")?["deleted"] == true)
        #expect(b.receipts.contains { $0["decision"] == "both-deleted" && $0["id"] == "y" })
    }

    @Test("55: a pull finds the server deleted an item edited here", arguments: ForeignServer.all)
    func pullFindsAServerDelete(_ server: ForeignServer) throws {
        let world = try SyncWorld(foreign: server)
        let b = world.replica("B")
        world.synced(b, "x")
        world.raw("DELETE", "/tables/todoitem/x")
        b.expect(0, "edit", "x", "--text", "b")
        b.expect(3, "pull")
        #expect(b.conflictKinds == ["x": "changed here, deleted there"])
        #expect(b.conflicts.first?["server"]?["ms_deleted"] == true)
    }

    @Test("97: deleted on A, edited on B: a conflict; --use-client restores x, and A's pull brings it back",
          arguments: ForeignServer.all)
    func deletedOnOneSideEditedOnTheOther(_ server: ForeignServer) throws {
        let world = try SyncWorld(foreign: server)
        let a = world.replica("A"), b = world.replica("B")
        world.synced(a, "x")
        b.expect(0, "pull")
        a.expect(0, "rm", "x")
        a.expect(0, "push")
        b.expect(0, "edit", "x", "--text", "b")
        b.expect(3, "push")
        #expect(b.conflictKinds == ["x": "changed here, deleted there"])
        b.expect(0, "resolve", "x", "--use-client")
        b.expect(0, "push")
        #expect(world.row("x")?["deleted"] == false)
        a.expect(0, "pull")
        #expect(a.item("x")?["text"] == "b")
    }

    @Test("25, 26, 27: one conflict among many; the item's later op is held; an open conflict is not sent again",
          arguments: ForeignServer.all)
    func oneConflictAmongMany(_ server: ForeignServer) throws {
        let world = try SyncWorld(foreign: server)
        let b = try textConflict(world)
        b.expect(0, "resolve", "x", "--use-client")
        world.raw("PATCH", "/tables/todoitem/x", body: ["text": "d"])
        b.sealOperations()  // as a push killed after sending x's op leaves it
        b.expect(0, "edit", "x", "--set", "note=\"later\"")
        #expect(b.operations.count == 2, "the edit queues behind the sealed op")
        for i in 0..<5 { b.expect(0, "add", "new \(i)", "--id", "n\(i)") }
        b.expect(3, "push")
        #expect(b.conflictKinds == ["x": "changed on both sides"])
        #expect(world.rows().count == 6, "the 5 inserts went")
        #expect(b.operations.filter { $0["id"] == "x" }.count == 2, "x's later op is held behind its conflict")
        #expect(world.row("x")?["note"] == nil)
        world.resetLog()
        b.expect(3, "push")
        #expect(world.requests(for: "x").isEmpty, "an open conflict is never sent again")
        b.expect(0, "resolve", "x", "--use-client")
        b.expect(0, "push")
        #expect(world.row("x")?["text"] == "b")
        #expect(world.row("x")?["note"] == "later")
    }

    @Test("65, 66: a hand-written resolution is published; \"delete\" deletes the row", arguments: ForeignServer.all)
    func manualResolutions(_ server: ForeignServer) throws {
        let world = try SyncWorld(foreign: server)
        let b = try textConflict(world)
        try b.writeResolution("x", ["text": "both", "complete": false])
        b.expect(0, "resolve", "x")
        b.expect(0, "push")
        #expect(world.row("x")?["text"] == "both")
        world.raw("PATCH", "/tables/todoitem/x", body: ["text": "theirs"])
        b.expect(0, "edit", "x", "--text", "mine")
        b.expect(3, "push")
        try b.writeResolution("x", "delete")
        b.expect(0, "resolve", "x")
        b.expect(0, "push")
        #expect(world.row("x")?["deleted"] == true)
        #expect(b.operations.isEmpty && b.conflicts.isEmpty && b.item("x") == nil)
    }

    @Test("70: edited here, gone for good there: --use-client inserts the client copy again", arguments: ForeignServer.all)
    func useClientAfterAHardDelete(_ server: ForeignServer) throws {
        let world = try SyncWorld(foreign: server)
        try world.storage.createTable("chores", softDelete: false)
        let b = world.replica("B")
        world.synced(b, "x", table: "chores")
        world.raw("DELETE", "/tables/chores/x")
        b.expect(0, "edit", "x", "--table", "chores", "--text", "b")
        b.expect(3, "push")
        #expect(b.conflictKinds == ["x": "changed here, deleted there"])
        #expect(b.conflicts.first?["server"] == .null)
        b.expect(0, "resolve", "x", "--table", "chores", "--use-client")
        b.expect(0, "push")
        #expect(world.row("x", table: "chores")?["text"] == "b")
        #expect(b.operations.isEmpty && b.conflicts.isEmpty)
    }

    @Test("32: a rejected insert is a conflict file with the server's reason; the others go", arguments: ForeignServer.all)
    func rejection(_ server: ForeignServer) throws {
        let world = try SyncWorld(foreign: server)
        let b = world.replica("B")
        world.synced(b, "x", set: ["priority=1"])
        b.expect(0, "add", "bad", "--id", "y", "--set", "priority=\"high\"")
        b.expect(0, "add", "good", "--id", "z")
        b.expect(3, "push")
        #expect(b.conflicts.first?["reason"] == "rejected")
        #expect(b.conflicts.first?["id"] == "y")
        #expect(world.row("z") != nil && world.row("y") == nil)
        try b.writeResolution("y", ["text": "bad", "complete": false, "priority": 2])
        b.expect(0, "resolve", "y")
        b.expect(0, "push")
        #expect(world.row("y")?["priority"] == 2)
    }

    @Test("10.2: the same item added on both sides under ids that differ in case is one conflict, found ignoring case",
          arguments: ForeignServer.all)
    func addedOnBothSidesInAnotherCase(_ server: ForeignServer) throws {
        let world = try SyncWorld(foreign: server)
        let a = world.replica("A"), b = world.replica("B")
        a.expect(0, "add", "from A", "--id", "ABC")
        a.expect(0, "push")
        b.expect(0, "add", "from B", "--id", "abc")
        b.expect(3, "push")
        #expect(b.conflictKinds == ["abc": "added on both sides"])
        #expect(b.conflicts.first?["server"]?["id"] == "ABC")
        #expect(b.conflicts.first?["server"]?["text"] == "from A")
        b.expect(0, "resolve", "abc", "--use-client")
        b.expect(0, "push")
        #expect(world.row("ABC")?["text"] == "from B")
        #expect(world.rows().count == 1)
    }
}
