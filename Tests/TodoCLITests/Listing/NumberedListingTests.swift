import Foundation
import Testing
import TodoBasics
import TodoTestSupport

/// Issue 21 item 4: in the default order (the items' numbers) `list` and `export` print as they
/// read, once the index of ids exists: no sort (none reported under `TODO_TEST_SORT_BUDGET`), the
/// items folder never listed, each item file read once, and the very output the sorts give.
@Suite struct NumberedListingTests {
    static let streamed: [[String]] = [["list", "--all"], ["list"], ["list", "--all", "--json"], ["export", "--json-lines"], ["export"],
                                       ["list", "--done", "--limit", "7"], ["list", "--all", "--columns", "done,id,rank"]]

    @Test func theDefaultOrderIsPrintedAsReadAndIsTheOrderOfTheSorts() throws {
        let (dir, fs) = StreamingGuardTests.store()
        defer { dir.remove() }
        let sortedOutputs = Self.streamed.map { CLIHarness(directory: dir.path, fs: fs).run($0) }
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/.todo/cache/ids"), "added with --id: no index yet, so those were sorted")
        #expect(CLIHarness(directory: dir.path).run("doctor").code == 0)
        for (args, sorted) in zip(Self.streamed, sortedOutputs) {
            fs.reset()
            let r = CLIHarness(directory: dir.path, environment: ["TODO_TEST_SORT_BUDGET": "4096"], fs: fs).run(args)
            #expect(r.code == 0 && r.err == "", "\(args): nothing sorted, nothing reported: \(r.err)")
            #expect(r.out == sorted.out, "\(args)")
            #expect(fs.lists(endingWith: "/items") == 0, "\(args): the items folder is not listed")
            let itemReads = fs.reads(containing: "/items/")
            #expect(Set(itemReads).count == itemReads.count, "\(args): each item file read once")
            if !args.contains("--limit") { #expect(itemReads.count == StreamingGuardTests.n, "\(args)") }
        }
        // A padded column whose width depends on every row (text before rank) still needs the sorts.
        let padded = CLIHarness(directory: dir.path, environment: ["TODO_TEST_SORT_BUDGET": "4096"]).run("list", "--columns", "id,text,rank")
        #expect(padded.err.contains("sort by order:"), "\(padded.err)")
        let first = sortedOutputs[0].out.split(separator: "\n").prefix(3).map { String($0.prefix(6)) }
        #expect(first == ["id-0  ", "id-1  ", "id-2  "], "the order items were added in, whatever their text: \(first)")
    }

    /// The first rows come from a small first batch: `--limit 3` of 150 items reads 64 at most.
    @Test func aLimitReadsOnlyTheFirstBatch() {
        let (dir, fs) = StreamingGuardTests.store()
        defer { dir.remove() }
        #expect(CLIHarness(directory: dir.path).run("doctor").code == 0)
        fs.reset()
        let r = CLIHarness(directory: dir.path, fs: fs).run("list", "--all", "--limit", "3")
        #expect(r.code == 0 && r.out.split(separator: "\n").count == 3, "\(r)")
        #expect(fs.reads(containing: "/items/").count <= 64, "\(fs.reads(containing: "/items/").count) item files read")
    }

    /// An id deleted and added again gets a new number; the old one, still naming it in the
    /// numbers files, is retired: the item is listed once, at its new place, as the sorts do.
    @Test func anIdThatCameBackIsListedOnceUnderItsNewNumber() {
        let dir = TempDirectory()
        defer { dir.remove() }
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("init").code == 0)
        for i in 0..<4 { #expect(cli.run("add", "item \(i)", "--id", "id-\(i)").code == 0) }
        #expect(cli.run("rm", "id-1").code == 0)
        #expect(cli.run("add", "again", "--id", "ID-1").code == 0)
        let sorted = cli.run("list", "--all")
        #expect(cli.run("doctor").code == 0)
        let streamed = CLIHarness(directory: dir.path, environment: ["TODO_TEST_SORT_BUDGET": "4096"]).run("list", "--all")
        #expect(streamed.err == "", "streamed, not sorted: \(streamed.err)")
        #expect(streamed.out == sorted.out)
        #expect(streamed.out.split(separator: "\n").map { String($0.prefix(4)) } == ["id-0", "id-2", "id-3", "ID-1"], "\(streamed.out)")
    }
}
