import Testing
import TodoBasics
import TodoTestSupport

/// Issue 19 item 3: `todo table rm` refuses to drop pending changes unless told, and with
/// --force keeps every dropped one in a receipt.
@Suite struct TableCommandTests {
    @Test func removingATableWithPendingChangesNeedsForceAndLeavesReceipts() {
        let dir = TempDirectory()
        defer { dir.remove() }
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("init").code == 0)
        #expect(cli.run("add", "keep me").code == 0)
        #expect(cli.run("add", "oops", "--table", "tpyo", "--id", "o1").code == 0)
        let refused = cli.run("table", "rm", "tpyo")
        #expect(refused.code == 1)
        #expect(refused.err == """
            error: table tpyo has 1 pending operation and 0 open conflicts; removing it would drop them
            hint: push them first ('todo push --table tpyo'), or drop them with 'todo table rm tpyo --force' (each operation leaves a receipt)

            """)
        #expect(cli.run("list", "--table", "tpyo").code == 0, "the refusal changed nothing")
        let forced = cli.run("table", "rm", "tpyo", "--force")
        #expect(forced.code == 0)
        #expect(forced.out == """
            dropped 1 pending operation; each left a 'purge force' receipt (see 'todo log')
            removed table tpyo from this replica (1 item and its queries); the server was not contacted

            """)
        #expect(!LocalFileSystem().fileExists(dir.sub(".todo/tables/tpyo")))
        #expect(cli.run("log").out.contains("purge force  tpyo  o1"))
        #expect(cli.run("table", "list").out.hasPrefix("* todoitem  1 item, 1 pending operation, 0 open conflicts; queries: none\n"))
        #expect(cli.run("doctor").code == 0)
        // The name is free again.
        #expect(cli.run("add", "again", "--table", "tpyo", "--id", "o1").code == 0)
    }

    @Test func anUnknownTableOrSubcommandIsRefusedClearly() {
        let dir = TempDirectory()
        defer { dir.remove() }
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("init").code == 0)
        let missing = cli.run("table", "rm", "nope")
        #expect(missing.code == 1 && missing.err.hasPrefix("error: no table 'nope' in this replica\n"), "\(missing)")
        let typo = cli.run("table", "lst")
        #expect(typo.code == 2)
        #expect(typo.err == "error: 'lst' is not a 'todo table' subcommand; use list or rm\nhint: did you mean 'todo table list'?\n")
        #expect(cli.run("table", "list").out == "* todoitem  0 items, 0 pending operations, 0 open conflicts; queries: none\n")
    }
}
