import Foundation
import Testing
import TodoBasics
import TodoTestSupport

/// Issue 21 items 2 and 6: `todo doctor` on N items holds one batch of item files (plus those of
/// the items with pending operations), never every item, and compares the index of ids with the
/// folders through a sort that spills to disk, never a map of every id. Counted through the
/// file-system seam and doctor's own figures under small test sizes (never timed).
@Suite struct DoctorScaleGuardTests {
    static let n = 120
    static let pending = 5
    /// Batches of 16 item files, a sort budget of 2 KB (some 20 ids), buckets of 16 ids.
    static let small = ["TODO_TEST_ITEM_BATCH": "16", "TODO_TEST_SORT_BUDGET": "2048", "TODO_TEST_ID_BUCKET_LIMIT": "16"]

    /// N synced items and a few pending inserts, with an index of ids built by doctor.
    static func store() -> (TempDirectory, CountingFileSystem) {
        let dir = TempDirectory()
        let fs = CountingFileSystem()
        let cli = CLIHarness(directory: dir.path, environment: ["TODO_TEST_ID_BUCKET_LIMIT": "16"], fs: fs)
        #expect(cli.run("init").code == 0)
        for i in 0..<n { ListFixture.writeItem(in: dir.path, id: String(format: "k%03d", i), text: "item \(i)", complete: false, priority: nil, second: 1) }
        for i in 0..<pending { #expect(cli.run("add", "new \(i)", "--id", "new-\(i)").code == 0) }
        #expect(cli.run("doctor").out.hasPrefix("ok: "))
        #expect(FileManager.default.fileExists(atPath: dir.sub(".todo/cache/ids/todoitem/stamp")), "the index of ids vouches")
        return (dir, fs)
    }

    /// "doctor held at most F item files and I ids; the ids were sorted in R runs" → (F, I, R).
    static func figures(_ err: String) -> [Int]? {
        guard let line = err.split(separator: "\n").first(where: { $0.hasPrefix("doctor held at most ") }) else { return nil }
        let numbers = line.split(whereSeparator: { $0 == " " || $0 == ";" }).compactMap { Int($0) }
        return numbers.count == 3 ? numbers : nil
    }

    @Test func doctorHoldsABatchOfItemsAndSortsTheIds() throws {
        let (dir, fs) = Self.store()
        defer { dir.remove() }
        fs.reset()
        let doctor = CLIHarness(directory: dir.path, environment: Self.small, fs: fs).run("doctor")
        #expect(doctor.code == 0 && doctor.out == "ok: 1 tables, \(Self.n + Self.pending) items, \(Self.pending) pending operations, 0 conflicts, 0 receipts\n", "\(doctor)")
        let figures = try #require(Self.figures(doctor.err), "doctor says what it held: \(doctor.err)")
        #expect(figures[0] <= 16 + Self.pending, "at most a batch of item files and those with operations: \(figures)")
        #expect(figures[1] <= (Self.n + Self.pending) / 3, "a bucket and the sort's budget of ids, not every id: \(figures)")
        #expect(figures[2] >= 2, "the folders' ids went through runs on disk: \(figures)")
        let itemReads = fs.reads(containing: "/items/")
        #expect(itemReads.count == Self.n + Self.pending && Set(itemReads).count == itemReads.count, "each item file read once: \(itemReads.count)")
        #expect(fs.lists(endingWith: "/items") <= 2, "the items folder is walked, not listed per item")
    }

    /// Every finding of items, operations and the index of ids is the same whatever the batch and
    /// the sort budget: the walk's order and the merge change nothing a user sees.
    @Test func findingsDoNotDependOnTheBatch() throws {
        let (dir, _) = Self.store()
        defer { dir.remove() }
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("add", "gone", "--id", "gone").code == 0)
        #expect(cli.run("rm", "k007").code == 0)
        ListFixture.writeItem(in: dir.path, id: "k007", text: "back by hand", complete: false, priority: nil, second: 1)
        try FileManager.default.removeItem(atPath: dir.sub(".todo/tables/todoitem/items/gone.json"))
        for path in ["new-2"] {
            let file = dir.sub(".todo/tables/todoitem/items/\(path).json")
            let text = try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: "\"text\": \"", with: "\"text\": \"edited ")
            try text.write(toFile: file, atomically: false, encoding: .utf8)
        }
        #expect(cli.run("doctor").code == 1, "the index of ids is rebuilt for the folders as they are now")
        let bucket = dir.sub(".todo/cache/ids/todoitem/1")
        let built = try String(contentsOfFile: bucket, encoding: .utf8)
        // The index misses k001 and gives k002 a number.
        let damaged = built.replacingOccurrences(of: "\"k001 2\",\n    ", with: "").replacingOccurrences(of: "\"k002 3\"", with: "\"k002 9\"")
        #expect(damaged != built, "\(built)")
        var outputs: [String] = []
        // (Buckets of the default size: each run rebuilds the index as the first one built it.)
        for environment in [[:], ["TODO_TEST_ITEM_BATCH": "16", "TODO_TEST_SORT_BUDGET": "2048"], ["TODO_TEST_ITEM_BATCH": "1", "TODO_TEST_SORT_BUDGET": "1"]] {
            try damaged.write(toFile: bucket, atomically: false, encoding: .utf8)
            let doctor = CLIHarness(directory: dir.path, environment: environment).run("doctor")
            #expect(doctor.code == 1)
            outputs.append(doctor.out)
        }
        #expect(outputs[1] == outputs[0] && outputs[2] == outputs[0], "\(outputs)")
        for expected in [".todo/operations/", "the item is deleted here but its item file exists", "the item file is missing",
                         ".todo/tables/todoitem/items/new-2.json: was edited by hand",
                         #"the index of ids misses "k001""#, #"the index of ids gives "k002" number 9, not 3"#] {
            #expect(outputs[0].contains(expected), "\(expected): \(outputs[0])")
        }
    }
}
