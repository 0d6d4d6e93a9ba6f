import Foundation
import Testing
import TodoBasics
import TodoTestSupport

/// Issue 21 item 4: `list` and `export` in number order print their first line before any pass
/// over the index of ids (2.4 s at a million items): what that pass finds (which numbers are
/// current, each id's shortest unique prefix, the id column's width) is kept in
/// `.todo/cache/numbered/<table>` and made again only when the index changed. Counted through
/// the file-system seam: no bucket of the index is read before the first item file.
@Suite struct FirstLineGuardTests {
    static let commands: [[String]] = [["list", "--all"], ["list"], ["export", "--json-lines"], ["export"], ["list", "--all", "--json"]]

    /// Reads of the index's buckets (files named by a number) before the first item file.
    static func bucketReadsBeforeFirstItem(_ fs: CountingFileSystem) -> [String] {
        let reads = fs.reads
        let first = reads.firstIndex { $0.contains("/items/") } ?? reads.count
        return reads[..<first].filter { $0.contains("/cache/ids/") && UInt32($0.lastPathComponent) != nil }
    }

    @Test func noBucketIsReadBeforeTheFirstItemOnceTheIndexIsUnchanged() {
        let (dir, fs) = StreamingGuardTests.store()
        defer { dir.remove() }
        #expect(CLIHarness(directory: dir.path).run("doctor").code == 0)
        let made = Self.commands.map { CLIHarness(directory: dir.path).run($0) }
        for (args, first) in zip(Self.commands, made) {
            fs.reset()
            let r = CLIHarness(directory: dir.path, environment: ["TODO_TEST_SORT_BUDGET": "4096"], fs: fs).run(args)
            #expect(r.code == 0 && r.err == "", "\(args): streamed, not sorted: \(r.err)")
            #expect(r.out == first.out, "\(args)")
            #expect(fs.reads(containing: "/items/").count == StreamingGuardTests.n, "\(args)")
            #expect(Self.bucketReadsBeforeFirstItem(fs).isEmpty, "\(args): \(Self.bucketReadsBeforeFirstItem(fs))")
        }
    }

    /// A change to the items (an id that makes short ids longer, a delete) is not listed from the
    /// figures of before: the output is the one the sorts give without any index or cache.
    @Test func aChangeIsListedAsTheSortsListIt() throws {
        let (dir, fs) = StreamingGuardTests.store()
        defer { dir.remove() }
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("doctor").code == 0)
        #expect(cli.run("list", "--all").code == 0)
        #expect(FileManager.default.fileExists(atPath: dir.path + "/.todo/cache/numbered/todoitem"))
        #expect(cli.run("add", "longer", "--id", "id-1000").code == 0)
        #expect(cli.run("rm", "id-7").code == 0)
        for args in [["list", "--all"], ["export", "--json-lines"]] {
            fs.reset()
            let streamed = CLIHarness(directory: dir.path, environment: ["TODO_TEST_SORT_BUDGET": "4096"], fs: fs).run(args)
            #expect(streamed.err == "", "\(args): streamed: \(streamed.err)")
            #expect(!Self.bucketReadsBeforeFirstItem(fs).isEmpty, "\(args): the index changed, so the pass is made again")
            try FileManager.default.removeItem(atPath: dir.path + "/.todo/cache")
            let sorted = CLIHarness(directory: dir.path, environment: ["TODO_TEST_SORT_BUDGET": "4096"]).run(args)
            #expect(sorted.err.contains("sort by order:"), "no index: sorted: \(sorted.err)")
            #expect(streamed.out == sorted.out, "\(args)")
            #expect(cli.run("doctor").code == 0)
        }
        let lines = CLIHarness(directory: dir.path).run("list", "--all").out.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("id-1000  ") } && lines.contains { $0.hasPrefix("id-100   ") }, "\(lines.suffix(3))")
        #expect(!lines.contains { $0.hasPrefix("id-7 ") })
    }

    /// A damaged or foreign cache file is no cache: the pass is made again and the output is the same.
    @Test(arguments: [Array("todo numbered ids 1\n".utf8), Array("garbage".utf8), []])
    func aDamagedCacheIsIgnored(_ bytes: [UInt8]) throws {
        let (dir, fs) = StreamingGuardTests.store()
        defer { dir.remove() }
        #expect(CLIHarness(directory: dir.path).run("doctor").code == 0)
        let before = CLIHarness(directory: dir.path).run("list", "--all")
        let path = dir.path + "/.todo/cache/numbered/todoitem"
        var damaged = Data(bytes)
        if bytes.isEmpty {
            // One byte of the figures flipped: the digest no longer matches.
            damaged = try #require(FileManager.default.contents(atPath: path))
            damaged[damaged.count - 20] ^= 1
        }
        try damaged.write(to: URL(fileURLWithPath: path))
        fs.reset()
        let after = CLIHarness(directory: dir.path, fs: fs).run("list", "--all")
        #expect(after.out == before.out && after.err == "")
        #expect(!Self.bucketReadsBeforeFirstItem(fs).isEmpty, "the damaged cache was not used")
        #expect(FileManager.default.contents(atPath: path) != damaged, "and it was made again")
    }
}
