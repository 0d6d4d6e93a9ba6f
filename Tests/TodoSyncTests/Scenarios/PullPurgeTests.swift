import Testing
import TodoModel
import TodoTestSupport

/// Purge, then pull (sync.md §6, scenario 81): a purge drops the tokens, so the next pull brings
/// the purged rows back.
@Suite struct PullPurgeTests {
    @Test("81: after a purge, pull brings every item back, starting from the beginning") func pullAfterPurge() throws {
        let world = try SyncWorld(wire: .inProcess)
        defer { withExtendedLifetime(world) {} }
        try world.seed(10)
        let a = world.replica("A")
        a.expect(0, "pull")
        #expect(a.itemIDs().count == 10 && a.token() != nil)
        a.expect(0, "purge")
        #expect(a.itemIDs().isEmpty && a.token() == nil)
        #expect(a.tableConfig()?["queries"]?["default"] != nil, "the query is kept")
        world.resetLog()
        a.expect(0, "pull")
        #expect(world.pages().first?.query("$filter") == nil)
        #expect(a.itemIDs() == (0..<10).map { SyncWorld.seededID("r", $0) })
        #expect(a.token()?["id"] == "r009")
    }

    @Test("after purge --query-id, pulling that query brings its items back; the other query keeps its token") func pullAfterQueryPurge() throws {
        let world = try SyncWorld(wire: .inProcess)
        defer { withExtendedLifetime(world) {} }
        try world.seed(6) { i in ["complete": .bool(i % 2 == 0)] }
        let a = world.replica("A")
        a.expect(0, "pull")
        a.expect(0, "pull", "--query-id", "open", "--filter", "complete eq false")
        let defaultToken = a.token()
        a.expect(0, "purge", "--query-id", "open")
        #expect(a.itemIDs() == ["r000", "r002", "r004"] && a.token("open") == nil && a.token() == defaultToken)
        world.resetLog()
        a.expect(0, "pull")
        #expect(a.itemIDs().count == 6)
        #expect(world.pages().contains { $0.query("$filter") == "complete eq false" }, "`open` started from the beginning")
        #expect(a.token() == defaultToken, "nothing new for `default`")
    }
}
