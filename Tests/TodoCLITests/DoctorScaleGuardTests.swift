import Foundation
import Testing
import TodoBasics
import TodoModel
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
        #expect(doctor.code == 0 && doctor.out == "ok: 1 table, \(Self.n + Self.pending) items, \(Self.pending) pending operations, 0 conflicts, 0 receipts\n", "\(doctor)")
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

/// Issue 21: `purge` and `table rm` of N items do not hold the table. `purge` reads each item
/// file once, a batch at a time (it refuses to throw away an edit made by hand); `table rm`
/// reads only the items with operations (their receipts keep the last server copy) and removes
/// the others by name.
@Suite struct PurgeScaleGuardTests {
    static let n = 60

    /// N synced items and 3 pending inserts in table todoitem.
    static func store(_ n: Int = n) -> (TempDirectory, CountingFileSystem) {
        let dir = TempDirectory()
        let fs = CountingFileSystem()
        let cli = CLIHarness(directory: dir.path, fs: fs)
        #expect(cli.run("init").code == 0)
        for i in 0..<n { ListFixture.writeItem(in: dir.path, id: "s\(i)", text: "item \(i)", complete: false, priority: nil, second: 1) }
        for i in 0..<3 { #expect(cli.run("add", "new \(i)", "--id", "new-\(i)").code == 0) }
        fs.reset()
        return (dir, fs)
    }

    @Test func purgeReadsEachItemOnceABatchAtATime() {
        let (dir, fs) = Self.store()
        defer { dir.remove() }
        let purge = CLIHarness(directory: dir.path, environment: ["TODO_TEST_ITEM_BATCH": "8"], fs: fs).run("purge", "--force")
        #expect(purge.code == 0, "\(purge)")
        #expect(purge.out.hasSuffix("purged todoitem: removed \(Self.n + 3) items and 0 query tokens; the next 'todo pull' fetches them again\n"), "\(purge)")
        #expect(purge.err == "purge held at most 8 item files\n", "a batch of item files at a time: \(purge.err)")
        let reads = fs.reads(containing: "/items/")
        #expect(reads.count == Self.n + 3 && Set(reads).count == reads.count, "each item file read once: \(reads.count)")
        #expect(ConflictStores.names(dir.path, "tables/todoitem/items").isEmpty)
        #expect(CLIHarness(directory: dir.path).run("doctor").code == 0)
    }

    @Test func tableRmReadsOnlyTheItemsWithOperations() {
        let (dir, fs) = Self.store()
        defer { dir.remove() }
        let rm = CLIHarness(directory: dir.path, fs: fs).run("table", "rm", "todoitem", "--force")
        #expect(rm.code == 0, "\(rm)")
        #expect(rm.out.hasSuffix("removed table todoitem from this replica (\(Self.n + 3) items and its queries); the server was not contacted\n"), "\(rm)")
        let reads = fs.reads(containing: "/items/")
        #expect(reads.count <= 3, "only the items with operations are read: \(reads.count)")
        #expect(fs.lists(endingWith: "/items") <= 1)
        #expect(!LocalFileSystem().fileExists(dir.sub(".todo/tables/todoitem")))
        #expect(CLIHarness(directory: dir.path).run("doctor").code == 0)
    }

    /// Each commit of a purge or table rm holds at most a batch of item files (the first one
    /// those with operations), however many go: counted in the journals, through the seam.
    /// Before, one commit held every item file of the table.
    @Test(arguments: [["purge", "--force"], ["table", "rm", "todoitem", "--force"]])
    func eachCommitHoldsABatchOfItemFiles(_ args: [String]) throws {
        let (dir, fs) = Self.store(125)
        defer { dir.remove() }
        let run = CLIHarness(directory: dir.path, environment: ["TODO_TEST_ITEM_BATCH": "8"], fs: fs).run(args)
        #expect(run.code == 0 && run.out.contains("128 items"), "\(run)")
        var itemFiles: [Int] = []
        for bytes in fs.journals {
            let writes = try #require(try JSONValue.parse(bytes).objectValue?["writes"]?.arrayValue)
            itemFiles.append(writes.filter { $0.objectValue?["path"]?.stringValue?.contains("/items/") == true }.count)
        }
        #expect(itemFiles.reduce(0, +) == 128, "every item file went in a commit: \(itemFiles)")
        #expect(itemFiles.max() ?? 0 <= 8, "at most a batch of item files a commit: \(itemFiles)")
        #expect(!LocalFileSystem().fileExists(dir.sub(".todo/tables/todoitem/items/s0.json")))
        #expect(!LocalFileSystem().fileExists(dir.sub(".todo/removal")), "the lists and the marker are gone")
        #expect(CLIHarness(directory: dir.path).run("doctor").code == 0)
    }
}

/// Issue 21: doctor checks the queue an item at a time, and checks and rebuilds the index of
/// pending operations a file at a time, walking the operations folder through sorts that spill to
/// disk: it never holds the queue (it held every operation, and the listing with every file of
/// the index: 242 MB at 100,000 pending operations). Counted by doctor's own figures under a
/// small sort budget (never timed).
@Suite struct QueueScaleGuardTests {
    static let n = 150

    /// "the queue: doctor held at most O operations and N names; the names were sorted in R runs" → (O, N, R).
    static func figures(_ err: String) -> [Int]? {
        guard let line = err.split(separator: "\n").first(where: { $0.hasPrefix("the queue: doctor held at most ") }) else { return nil }
        let numbers = line.split(whereSeparator: { $0 == " " || $0 == ";" }).compactMap { Int($0) }
        return numbers.count == 3 ? numbers : nil
    }

    @Test func doctorHoldsAnItemsOperationsAndASortsBudgetOfNames() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("init").code == 0)
        for i in 0..<Self.n { #expect(cli.run("add", "new \(i)", "--id", String(format: "p%03d", i)).code == 0) }
        #expect(cli.run("rm", "p007").code == 0)
        let log = cli.run("log").out
        let stamp = dir.sub(".todo/cache/pending/stamp")
        let small = ["TODO_TEST_SORT_BUDGET": "2048"]
        for vouched in [false, true] {
            if !vouched { try FileManager.default.removeItem(atPath: stamp) }  // stale: doctor rebuilds it
            let doctor = CLIHarness(directory: dir.path, environment: small).run("doctor")
            #expect(doctor.code == 0 && doctor.out == "ok: 1 table, \(Self.n - 1) items, \(Self.n - 1) pending operations, 0 conflicts, 1 receipt\n", "\(doctor)")
            let figures = try #require(Self.figures(doctor.err), "doctor says what it held: \(doctor.err)")
            #expect(figures[0] == 1, "an item's operations at a time: \(figures)")
            #expect(figures[1] > 0 && figures[1] <= Self.n / 3, "a sort's budget of names, not the queue: \(figures)")
            #expect(figures[2] >= 4, "the names went through runs on disk: \(figures)")
            #expect(FileManager.default.fileExists(atPath: stamp), "the index vouches")
            // The files written a few names at a time are the ones a walk with room for all finds.
            #expect(cli.run("doctor").out.hasPrefix("ok: "))
            #expect(cli.run("log").out == log, "the pages give the queue")
        }
    }
}
