import Testing
import TodoBasics
import TodoTestSupport

/// Issue 21 item 6: commands that grow faster than their output fail here, counted in file-system
/// calls (never timed). A folder listing costs O(n) in its entries, so a command that lists the
/// operations folder once per item is quadratic.
@Suite struct ComplexityGuardTests {
    static func store(pending n: Int) -> (TempDirectory, CLIHarness, CountingFileSystem) {
        let dir = TempDirectory()
        let fs = CountingFileSystem()
        let cli = CLIHarness(directory: dir.path, fs: fs)
        #expect(cli.run("init").code == 0)
        for i in 0..<n { #expect(cli.run("add", "item \(i)", "--id", "id-\(i)").code == 0) }
        fs.reset()
        return (dir, cli, fs)
    }

    @Test(arguments: [20, 80])
    func diffReadsTheQueueOnce(pending n: Int) {
        let (dir, cli, fs) = Self.store(pending: n)
        defer { dir.remove() }
        let diff = cli.run("diff")
        #expect(diff.code == 0)
        #expect((0..<n).allSatisfy { diff.out.contains("todoitem/id-\($0) ") }, "\(diff)")
        #expect(fs.lists(endingWith: "/.todo/operations") <= 2, "listed \(fs.lists(endingWith: "/.todo/operations")) times for \(n) operations")
        let opReads = fs.reads(containing: "/.todo/operations/")
        #expect(opReads.count <= 2 * n, "\(opReads.count) reads of \(n) operation files")
        #expect(fs.reads(containing: "/items/").count <= 3 * n, "each item file is read at most three times")
    }
}
