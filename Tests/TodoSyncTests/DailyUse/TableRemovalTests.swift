import Testing
import TodoModel
import TodoTestSupport

/// Issue 19 item 3, against the real server: a mistyped `--table` or `--query-id` can be listed
/// and removed, after which pulls work again.
@Suite struct TableRemovalTests {
    @Test func aMistypedTableStopsEveryPullUntilTableRmRemovesIt() throws {
        let world = try SyncWorld()
        let a = world.replica("A")
        _ = try #require(world.synced(a, "x"))
        a.expect(0, "add", "milk", "--table", "todoitme", "--id", "m1")
        let pull = a.expect(1, "pull")
        #expect(pull.err.contains("error: todoitme query 'default': the server has no table 'todoitme'"), "\(pull)")
        let tables = a.expect(0, "table", "list")
        #expect(tables.out == """
            * todoitem  1 item, 0 pending operations, 0 open conflicts; queries: default
              todoitme  1 item, 1 pending operation, 0 open conflicts; queries: none

            """, "\(tables)")
        a.expect(1, "table", "rm", "todoitme")
        let rm = a.expect(0, "table", "rm", "todoitme", "--force")
        #expect(rm.out.hasSuffix("removed table todoitme from this replica (1 item and its queries); the server was not contacted\n"), "\(rm)")
        a.expect(0, "pull")
        #expect(!a.expect(0, "table", "list").out.contains("todoitme"))
        a.expect(0, "doctor")
    }

    @Test func aMistypedQueryIdIsListedAndRemoved() throws {
        let world = try SyncWorld()
        let a = world.replica("A")
        _ = try #require(world.synced(a, "x"))
        a.expect(0, "pull", "--query-id", "mien", "--filter", "complete eq false")
        let list = a.expect(0, "query", "list")
        #expect(list.out.contains("todoitem/mien  filter: complete eq false  last pull: "), "\(list)")
        let typo = a.expect(1, "query", "rm", "mein")
        #expect(typo.err == "error: no query 'mein' in table todoitem\nhint: did you mean 'mien'? (queries of todoitem: mien)\n", "\(typo)")
        #expect(a.expect(0, "query", "rm", "mien").out == "removed query 'mien' of table todoitem; its items stay (later pulls skip it)\n")
        #expect(!a.expect(0, "query", "list").out.contains("mien"))
        #expect(a.item("x") != nil, "the items stay")
        a.expect(0, "pull")
        a.expect(0, "doctor")
    }
}
