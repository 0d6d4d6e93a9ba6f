import Testing
import TableProtocol
import TodoBasics
import TodoModel
import TodoStore
@testable import TodoSync
import TodoTestSupport

/// Issue 21 item 5: what a pull keeps between pages does not grow with the table, so a clone of a
/// million rows runs in flat memory. Checked by counting what the engine remembers (no timing, no
/// RSS): the pages are served in this process by the real table service.
@Suite struct PullMemoryTests {
    static func pulled(rows: Int, replicaIDs: [String] = []) throws -> (PullEngine, PullReport, Store, SyncWorld) {
        let world = try SyncWorld()
        for i in 0..<rows {
            let answer = world.raw("POST", "/tables/todoitem", body: ["id": .string("row-\(i)"), "text": .string("t\(i)")])
            #expect(answer.status == 201)
        }
        let replica = world.replica("A")
        for id in replicaIDs { replica.expect(0, "add", "local", "--id", id) }
        let store = try Store.open(at: replica.directory.appendingPath(".todo"), fs: LocalFileSystem(), writable: true, command: "pull")
        let service = world.service
        let transport = ScriptedTransport { .success(service.respond(to: $0)) }
        let client = TableClient(transport: transport, generation: .mobileApps, basePath: "", appKey: nil,
                                 installationID: "test", todoVersion: "test", retry: RetryPolicy(jitter: { 0 }, sleep: { _ in }))
        let engine = try PullEngine(store: store, client: client, clock: .fixed(0), pageSize: 50)
        let report = try engine.run(.init())
        return (engine, report, store, world)
    }

    @Test("a clone of 600 rows in pages of 50 remembers no row once its page has committed") func cloneRemembersNoRows() throws {
        let (engine, report, store, world) = try Self.pulled(rows: 600)
        defer { withExtendedLifetime(world) {} }
        #expect(report.queries.first?.created == 600)
        #expect(engine.rememberedRows == 0, "rows kept after the pull: \(engine.rememberedRows)")
        #expect(try store.itemFiles(table: "todoitem").count == 600)
    }

    @Test("a clone of 600 rows in pages of 50 holds the numbers given by one page at most") func cloneHoldsOnePageOfNumbers() throws {
        let (_, report, store, world) = try Self.pulled(rows: 600)
        defer { withExtendedLifetime(world) {} }
        #expect(report.queries.first?.created == 600)
        let held = store.givenNumbers.values.reduce(0) { $0 + $1.count }
        #expect(held <= 50, "numbers held after the clone: \(held)")
        #expect(try store.itemNumbers(table: "todoitem").count == 600)
    }
}
