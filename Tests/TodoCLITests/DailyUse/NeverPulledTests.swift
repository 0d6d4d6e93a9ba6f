import Testing
import TodoBasics
import TodoTestSupport

/// Issue 19 item 3: `todo status` says "Never pulled." only when nothing was ever pulled.
@Suite struct NeverPulledTests {
    static let table = ".todo/tables/todoitem/table.json"

    @Test func aReplicaThatNeverPulledSaysSo() {
        let dir = TempDirectory()
        defer { dir.remove() }
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("init").code == 0)
        #expect(cli.run("add", "milk").code == 0)
        #expect(cli.run("status").out.hasSuffix("\nNever pulled.\n"))
    }

    /// The pulled items stay when their query is removed: they were pulled.
    @Test func itemsFromAPullWithoutAStoredQueryAreNotNeverPulled() {
        let dir = TempDirectory()
        defer { dir.remove() }
        Fixtures.copy("Stores/synced", to: dir.path)
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("query", "rm", "default").code == 0)
        let status = cli.run("status")
        #expect(!status.out.contains("Never pulled."), "\(status)")
        #expect(status.out.hasSuffix("""
            Last pull:
              todoitem  pulled, but no query is stored (a pull with --filter alone, or a query removed); 'todo pull' stores 'default'

            """), "\(status)")
    }

    /// A clone cut short keeps the pages it committed and their token, but no time of a last pull.
    @Test func aPullCutShortIsNotNeverPulled() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        Fixtures.copy("Stores/synced", to: dir.path)
        let fs = LocalFileSystem()
        let text = String(decoding: try #require(try fs.readFile(dir.sub(Self.table))), as: UTF8.self)
        try fs.writeFile(dir.sub(Self.table), Array(text.replacingOccurrences(of: "\"2024-05-01T09:00:10.000Z\"", with: "null").utf8), sync: false)
        let status = CLIHarness(directory: dir.path).run("status")
        #expect(status.out.hasSuffix("""
            Last pull:
              todoitem/default  not finished: stopped partway; 'todo pull' resumes it from its token

            """), "\(status)")
    }
}
