#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import TodoBasics
import TodoTestSupport

/// The external merge sort behind `list` and `export` (issue 21 item 4): the merge gives the
/// order an in-memory sort gives, whatever the budget, and cleans up after itself.
@Suite struct RunSorterTests {
    /// Pseudo-random keys of varying length, some equal, some prefixes of others.
    static func records(_ n: Int) -> [RunSorter.Record] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<n).map { i in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let length = Int(state >> 60)  // 0...15 bytes
            let key = (0..<length).map { UInt8(truncatingIfNeeded: state >> UInt64(8 * ($0 % 7))) % 4 }
            return RunSorter.Record(key: key, payload: Array("record \(i)".utf8))
        }
    }

    static func sorted(_ records: [RunSorter.Record], budget: Int, folder: String) throws -> ([RunSorter.Record], Int) {
        let sorter = RunSorter(budget: budget, folders: [folder])
        for r in records { try sorter.add(key: r.key, payload: r.payload) }
        let runs = sorter.runs.count
        var out: [RunSorter.Record] = []
        try sorter.sorted { out.append($0); return true }
        return (out, runs)
    }

    @Test(arguments: [1 << 20, 2_000, 300])
    func mergedRunsGiveTheStableOrderOfAnInMemorySort(budget: Int) throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let records = Self.records(3_000)
        let (out, runs) = try Self.sorted(records, budget: budget, folder: dir.path)
        // Equal keys keep the order they were added in (payloads number them).
        let expected = records.enumerated().sorted { a, b in
            RunSorter.less(a.element.key, b.element.key) || (a.element.key == b.element.key && a.offset < b.offset)
        }.map(\.element)
        #expect(out == expected)
        #expect(budget > 100_000 ? runs == 0 : runs > 10, "a small budget spills runs to disk (\(runs))")
        #expect(try LocalFileSystem().listDirectory(dir.path) == [], "the runs and their folder are removed")
    }

    @Test func keysCompareAsUnsignedBytesShorterFirst() {
        #expect(RunSorter.less([1, 2], [1, 2, 0]))
        #expect(RunSorter.less([0x7F], [0x80]))
        #expect(!RunSorter.less([2], [1, 255]))
        #expect(!RunSorter.less([], []))
        #expect(RunSorter.less([], [0]))
    }

    @Test func stoppingEarlyStillRemovesTheRuns() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let sorter = RunSorter(budget: 200, folders: [dir.path])
        for r in Self.records(500) { try sorter.add(key: r.key, payload: r.payload) }
        #expect(sorter.runs.count > 5)
        var seen = 0
        try sorter.sorted { _ in seen += 1; return seen < 3 }
        #expect(seen == 3)
        #expect(try LocalFileSystem().listDirectory(dir.path) == [])
    }

    /// A replica that cannot be written (its .todo/cache) sorts in the next folder given.
    @Test func aFolderThatCannotBeWrittenIsPassedOver() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let records = Self.records(400)
        let sorter = RunSorter(budget: 200, folders: [dir.sub("missing/deeper"), dir.path])
        for r in records { try sorter.add(key: r.key, payload: r.payload) }
        #expect(sorter.runs.allSatisfy { $0.hasPrefix(dir.path + "/sort-") })
        var count = 0
        try sorter.sorted { _ in count += 1; return true }
        #expect(count == 400)
    }

    @Test func noFolderAtAllIsAnErrorNamingThePath() {
        let sorter = RunSorter(budget: 10, folders: ["/nonexistent-todo-folder"])
        let error = #expect(throws: FileSystemError.self) {
            for r in Self.records(50) { try sorter.add(key: r.key, payload: r.payload) }
        }
        // The run folder it tried to make, and why that failed: what a person needs to fix it.
        #expect(error?.operation == "create" && error?.code == ENOENT, "\(String(describing: error))")
        #expect(error?.path.hasPrefix("/nonexistent-todo-folder/sort-") == true, "\(String(describing: error))")
        #expect(error?.reason == String(cString: strerror(ENOENT)), "\(String(describing: error))")
    }

    /// A command killed mid-sort (`list | head` that was interrupted, Ctrl-C) leaves its run
    /// folder behind: the next sort in the same place removes the folders of processes that are
    /// gone, and leaves those of live ones and anything that is not a run folder.
    @Test func runFoldersOfDeadProcessesAreSweptAway() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let fs = LocalFileSystem()
        let dead = dir.path + "/sort-999999999-7"  // above any pid_max: no such process
        let live = dir.path + "/sort-\(getpid())-999999"
        let other = dir.path + "/sort-999999999-8"
        for folder in [dead, live, other] { try fs.createDirectory(folder) }
        try fs.writeFile(dead + "/run-0", [1, 2, 3], sync: false)
        try fs.writeFile(live + "/run-0", [1, 2, 3], sync: false)
        try fs.writeFile(other + "/notes.txt", [1], sync: false)
        _ = try Self.sorted(Self.records(200), budget: 300, folder: dir.path)
        #expect(!fs.fileExists(dead + "/run-0") && !fs.isDirectory(dead), "the dead process's runs stay")
        #expect(fs.fileExists(live + "/run-0"))
        #expect(fs.fileExists(other + "/notes.txt"))
    }
}
