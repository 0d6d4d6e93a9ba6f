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

    /// Issue 21 item 3: a local change or `show` of one item opens that item's operation files
    /// and the index of pending operations, and never lists the queue.
    @Test(arguments: [20, 80])
    func localCommandsNeverListTheQueue(pending n: Int) {
        let (dir, cli, fs) = Self.store(pending: n)
        defer { dir.remove() }
        let commands: [[String]] = [["add", "one more", "--id", "new-1"], ["edit", "id-3", "--text", "changed"], ["show", "id-3"],
                                    ["done", "id-4"], ["rm", "id-5"], ["show", "new-1"], ["undone", "id-4"]]
        for args in commands {
            fs.reset()
            let r = cli.run(args)
            #expect(r.code == 0, "\(args): \(r)")
            #expect(fs.lists(endingWith: "/.todo/operations") == 0, "todo \(args.joined(separator: " ")) listed the operations folder")
            let opReads = fs.reads(containing: "/.todo/operations/")
            #expect(opReads.count <= 2, "todo \(args.joined(separator: " ")) read \(opReads.count) operation files of \(n)")
            // The stamp, the item's bucket (twice), the deletes, a page of the queue and one or two of the items.
            #expect(fs.reads(containing: "/.todo/cache/pending/").count <= 8, "\(fs.reads(containing: "/.todo/cache/pending/"))")
        }
        #expect(cli.run("doctor").out.hasPrefix("ok: "), "the index kept by the commands matches the operation files")
    }

    /// Issue 21 item 3: a local change or `show` of one item named by a prefix or by its number
    /// finds the id and its short form in the index of ids (`.todo/cache/ids`), reading the
    /// directory and a few buckets, and never lists the items folder.
    @Test(arguments: [20, 80])
    func localCommandsNeverListTheItems(items n: Int) {
        let dir = TempDirectory()
        defer { dir.remove() }
        let fs = CountingFileSystem()
        let cli = CLIHarness(directory: dir.path, fs: fs)
        #expect(cli.run("init").code == 0)
        for i in 0..<n { #expect(cli.run("add", "item \(i)", "--id", "k\(i)x").code == 0) }
        #expect(cli.run("doctor").out.hasPrefix("ok: "))  // builds the index of ids
        let commands: [[String]] = [["edit", "k17", "--text", "changed"], ["show", "k17"], ["done", "4"], ["undone", "4"],
                                    ["rm", "k5x"], ["add", "one more", "--id", "k5y"], ["show", "k5y"], ["edit", "\(n + 1)", "--text", "b"]]
        for args in commands {
            fs.reset()
            let r = cli.run(args)
            #expect(r.code == 0, "\(args): \(r)")
            #expect(fs.lists(endingWith: "/items") == 0, "todo \(args.joined(separator: " ")) listed the items folder")
            #expect(fs.reads(containing: "/items/").count <= 4, "todo \(args.joined(separator: " ")) read \(fs.reads(containing: "/items/"))")
            #expect(fs.reads(containing: "/.todo/cache/ids/").count <= 8, "\(fs.reads(containing: "/.todo/cache/ids/"))")
            #expect(fs.reads(containing: "/numbers/").count <= 2, "\(fs.reads(containing: "/numbers/"))")
        }
        #expect(cli.run("doctor").out.hasPrefix("ok: "), "the index kept by the commands matches the item files")
    }
}
