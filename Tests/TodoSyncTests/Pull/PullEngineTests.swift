import Testing
import TableProtocol
import TodoBasics
import TodoModel
import TodoStore
@testable import TodoSync
import TodoTestSupport

/// The pull engine end to end without a socket: the real table service answers in this process
/// (`ScriptedTransport`), the replica is real files. It checks that the planner's decisions reach
/// the store and the report the way sync.md §5 says, page by page.
@Suite struct PullEngineTests {
    /// Runs one `todo pull` of the replica through the engine, in pages of 2, and releases the lock.
    static func pull(_ replica: CLIHarness, _ world: SyncWorld) throws -> (PullReport, TableConfig?, remembered: Int) {
        let store = try Store.open(at: replica.directory.appendingPath(".todo"), fs: LocalFileSystem(), writable: true, command: "pull")
        defer { store.close() }
        let service = world.service
        let transport = ScriptedTransport { .success(service.respond(to: $0)) }
        let client = TableClient(transport: transport, generation: .mobileApps, basePath: "", appKey: nil,
                                 installationID: "test", todoVersion: "test", retry: RetryPolicy(jitter: { 0 }, sleep: { _ in }))
        let engine = try PullEngine(store: store, client: client, clock: .fixed(0), pageSize: 2)
        let report = try engine.run(.init())
        return (report, try store.tableConfig("todoitem"), engine.rememberedRows)
    }

    @Test("a pull applies each page's decisions: created, merged, conflicts, receipts and the token, per page") func pullThroughThePlanner() throws {
        let world = try SyncWorld()
        for id in ["a", "b", "c"] {
            #expect(world.raw("POST", "/tables/todoitem", body: ["id": .string(id), "text": .string(id), "complete": false]).status == 201)
        }
        let replica = world.replica("A")

        let (clone, _, _) = try Self.pull(replica, world)
        #expect(clone.queries.map(\.created) == [3])
        #expect(clone.queries.map(\.pages) == [3], "two pages of rows, then the empty page")

        // Local edits: `a` changes its text, `b` too; the server changes `a`'s other field (a clean
        // merge, case 10) and `b`'s text (a clash, case 11), and gains `d` (case 3).
        replica.expect(0, "edit", "a", "--text", "a here")
        replica.expect(0, "edit", "b", "--text", "b here")
        #expect(world.raw("PATCH", "/tables/todoitem/a", body: ["complete": true]).status == 200)
        #expect(world.raw("PATCH", "/tables/todoitem/b", body: ["text": "b there"]).status == 200)
        #expect(world.raw("POST", "/tables/todoitem", body: ["id": "d", "text": "d"]).status == 201)

        let (report, config, remembered) = try Self.pull(replica, world)
        let query = try #require(report.queries.first)
        #expect(query.received == 3 && query.created == 1 && query.merged == 1 && query.conflicts == 1)
        #expect(query.updated == 0 && query.absorbed == 0 && query.removed == 0 && query.skippedSealed == 0)
        #expect(report.openConflicts == 1 && report.stop == nil)
        #expect(remembered == 0, "nothing of a page is kept once it committed")

        // The token is the last row's (updatedAt, id), committed with the page that applied it.
        let last = try #require(world.row("d")?["updatedAt"]?.stringValue)
        #expect(query.token == TableConfig.Token(updatedAt: last, id: "d"))
        #expect(config?.queries["default"]?.token == query.token)

        // Case 10 on disk: the item holds both changes, the op is rebased, one `merge` receipt.
        let a = try #require(replica.item("a"))
        #expect(a["text"] == "a here" && a["complete"] == true)
        let ops = replica.operations.filter { $0["id"]?.stringValue == "a" }
        #expect(ops.count == 1 && ops.first?["item"]?["complete"] == true)
        #expect(ops.first?["base"]?["ms_version"] == world.row("a")?["version"], "the op's base is the pulled row")
        #expect(replica.receipts.compactMap { $0["decision"]?.stringValue } == ["merge"])
        // Case 11 on disk: `b` keeps the local text and gets a conflict naming the field.
        #expect(replica.item("b")?["text"] == "b here")
        #expect(replica.conflicts.map { $0["fields"] } == [["text"]])
        #expect(replica.item("d")?["text"] == "d")
    }
}
