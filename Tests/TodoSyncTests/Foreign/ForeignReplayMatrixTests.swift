import Testing
import TableProtocol
import TodoModel
import TodoTestSupport

/// Issue 15 item 3: the crash-and-replay scenarios of sync.md §12 (83–87) and the pull of a
/// whole table against every server profile of `ForeignServer`. A write that landed before its
/// answer was lost completes exactly once, with the receipt of its kind; a write that never left
/// is sent; nothing is called a replay that was not one.
///
/// "Killed after the request landed" is `landThenFail`: the first write reaches the real service
/// through the profile, then every answer is 503, so the push stops with the op sealed.
@Suite struct ForeignReplayMatrixTests {
    func rules(_ replica: CLIHarness) -> [String] {
        replica.receipts.map { "\($0["decision"]?.stringValue ?? "?") \($0["rule"]?.stringValue ?? "?")" }
    }

    /// The replica's next write lands but its answer is lost (the push stops, exit 4); the push
    /// after that sends nothing and completes the op with the receipt `rule`.
    func landedThenReplayed(_ world: SyncWorld, _ a: CLIHarness, rule: String, sourceLocation: SourceLocation = #_sourceLocation) {
        world.landThenFail()
        a.expect(4, "push", sourceLocation: sourceLocation)
        world.script(nil)
        world.resetLog()
        a.expect(0, "push", sourceLocation: sourceLocation)
        #expect(world.writes().isEmpty, sourceLocation: sourceLocation)
        #expect(rules(a) == [rule], sourceLocation: sourceLocation)
        #expect(a.operations.isEmpty && a.conflicts.isEmpty, sourceLocation: sourceLocation)
    }

    @Test("83: a sealed insert that never left: the query finds nothing, the POST goes, no receipt", arguments: ForeignServer.all)
    func sealedInsertNeverSent(_ server: ForeignServer) throws {
        let world = try SyncWorld(foreign: server)
        let a = world.replica("A")
        a.expect(0, "add", "a", "--id", "x")
        a.sealOperations()
        a.expect(0, "push")
        #expect(world.writes().map(\.method) == ["POST"])
        #expect(world.rows().count == 1)
        #expect(rules(a).isEmpty)
        #expect(a.item("x")?["ms_version"]?.stringValue == world.version("x"))
    }

    @Test("84: the insert landed, its answer was lost: no second POST, replay insert-exists", arguments: ForeignServer.all)
    func insertLanded(_ server: ForeignServer) throws {
        let world = try SyncWorld(foreign: server)
        let a = world.replica("A")
        a.expect(0, "add", "a", "--id", "x")
        landedThenReplayed(world, a, rule: "replay insert-exists")
        #expect(world.rows().count == 1)
        #expect(a.item("x")?["ms_version"]?.stringValue == world.version("x"))
    }

    @Test("85: the update landed, its answer was lost: no conflict, replay update-applied", arguments: ForeignServer.all)
    func updateLanded(_ server: ForeignServer) throws {
        let world = try SyncWorld(foreign: server)
        let a = world.replica("A")
        world.synced(a, "x")
        a.expect(0, "edit", "x", "--text", "b")
        landedThenReplayed(world, a, rule: "replay update-applied")
        #expect(a.item("x")?["ms_version"]?.stringValue == world.version("x"))
    }

    @Test("86: the delete landed, its answer was lost: replay delete-gone", arguments: ForeignServer.all)
    func deleteLanded(_ server: ForeignServer) throws {
        let world = try SyncWorld(foreign: server)
        let a = world.replica("A")
        world.synced(a, "x")
        a.expect(0, "rm", "x")
        landedThenReplayed(world, a, rule: "replay delete-gone")
        #expect(world.row("x")?["deleted"] == true)
    }

    @Test("87: an edit after a crash queues behind; the next PATCH goes on the landed version", arguments: ForeignServer.all)
    func editAfterCrash(_ server: ForeignServer) throws {
        let world = try SyncWorld(foreign: server)
        let a = world.replica("A")
        world.synced(a, "x")
        a.expect(0, "edit", "x", "--text", "b")
        world.landThenFail()
        a.expect(4, "push")
        let landed = try #require(world.version("x"))
        world.script(nil)
        a.expect(0, "edit", "x", "--text", "c")
        world.resetLog()
        a.expect(0, "push")
        #expect(world.writes().map(\.method) == ["PATCH"])
        #expect(world.writes().first?.headers["If-Match"] == "\"\(landed)\"")
        #expect(world.row("x")?["text"] == "c")
        #expect(a.conflicts.isEmpty && a.operations.isEmpty)
    }

    @Test("38, 39: a clone gets every row, and a pull the changes after it, through short pages and any date form",
          arguments: ForeignServer.all)
    func cloneAndPull(_ server: ForeignServer) throws {
        let world = try SyncWorld(foreign: server)
        let a = world.replica("A"), b = world.replica("B")
        for i in 0..<7 { a.expect(0, "add", "row \(i)", "--id", "r\(i)") }
        a.expect(0, "push")
        b.expect(0, "pull")
        #expect(b.itemIDs() == (0..<7).map { "r\($0)" })
        world.raw("PATCH", "/tables/todoitem/r3", body: ["text": "changed"])
        world.raw("DELETE", "/tables/todoitem/r5")
        world.resetLog()
        b.expect(0, "pull")
        #expect(b.item("r3")?["text"] == "changed")
        #expect(b.item("r3")?["ms_version"]?.stringValue == world.version("r3"))
        #expect(!b.itemIDs().contains("r5"))
        #expect(b.itemIDs().count == 6)
        // The second pull asks only for rows after its token: the 2 changes, not the table.
        #expect(world.pages().count <= 3, "\(world.pages().map(\.target))")
        a.expect(0, "pull")
        #expect(a.itemIDs() == b.itemIDs())
    }

    @Test("a proxy that ignores $filter in the one-row query: the replay check cannot know, so the push stops (exit 4)")
    func oneRowQueryIgnored() throws {
        let world = try SyncWorld()
        let a = world.replica("A")
        world.synced(a, "other")
        a.expect(0, "add", "a", "--id", "x")
        a.sealOperations()
        world.script { request, service in
            guard request.isList else { return service(request) }
            return service(HTTPRequest(method: "GET", target: "/tables/todoitem?__includeDeleted=true", headers: request.headers))
        }
        let push = a.expect(4, "push")
        #expect(push.err.contains("ignored $filter"), "\(push)")
        #expect(world.writes().isEmpty, "nothing is sent on a guess")
        #expect(a.operations.first?["attempted"] == true, "the op stays sealed for the next replay check")
        world.script(nil)
        a.expect(0, "push")
        #expect(world.rows().count == 2)
    }
}
