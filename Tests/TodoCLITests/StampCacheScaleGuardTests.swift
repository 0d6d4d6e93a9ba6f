import Testing
import TodoBasics
import TodoModel
import TodoStore
import TodoTestSupport

/// Issue 21: the stamp cache of hand edits (`.todo/cache/item-stamps`) is held a page at a time
/// while `status` walks the item files in its order, never whole (16 bytes an item, read and
/// rebuilt whole: 71 MB for `status` at a million items). Counted through status's own figures
/// and the file-system seam under small test sizes (never timed): the cache must still spare
/// the second scan every read of an unchanged item file.
@Suite struct StampCacheScaleGuardTests {
    /// Batches of 8 item files (and pages of 8 stamps), a sort budget of 2 KB.
    static let small = ["TODO_TEST_ITEM_BATCH": "8", "TODO_TEST_SORT_BUDGET": "2048", "TODO_RETRY_WAIT_SCALE": "0"]

    /// "the stamp cache: at most S entries held at once; the item files were sorted in R runs" → (S, R).
    static func figures(_ err: String) -> [Int]? {
        guard let line = err.split(separator: "\n").first(where: { $0.hasPrefix("the stamp cache: ") }) else { return nil }
        let numbers = line.split(whereSeparator: { $0 == " " || $0 == ";" }).compactMap { Int($0) }
        return numbers.count == 2 ? numbers : nil
    }

    @Test(arguments: [["status"], ["status", "--short", "--table", "todoitem"]])
    func statusHoldsAPageOfTheCache(_ args: [String]) throws {
        let (dir, _, reads) = try StatusStampTests.store(items: 300)
        defer { dir.remove() }
        let files = StatusStampTests.itemFiles(dir.path).count
        let roomy = CLIHarness(directory: dir.path).run(args)
        try LocalFileSystem().removeFile(dir.sub(".todo/cache/item-stamps"))
        let cli = CLIHarness(directory: dir.path, environment: Self.small, fs: reads.fs)
        for round in ["first", "second"] {
            reads.reset()
            let run = cli.run(args)
            #expect(run.code == 0 && run.out == roomy.out, "\(round): the same output whatever the budgets: \(run)")
            let figures = try #require(Self.figures(run.err), "status says what it held: \(run.err)")
            #expect(figures[0] <= 4 * 8, "\(round): a few pages and a batch of stamps, not one per item file (\(files)): \(figures)")
            #expect(figures[1] >= 2, "\(round): the item files went through runs on disk: \(figures)")
            #expect(reads.count == (round == "first" ? files : 0), "\(round): item files read: \(reads.count) of \(files)")
        }
        // A hand edit is seen through the paged cache, and only its file is read.
        try HandEditTests.handEdit(dir.path, HandEditTests.d265File, "Mobile Services is Cool!", "Mobile Services is COOL!")
        reads.reset()
        let edited = cli.run("status", "--short")
        #expect(edited.out.hasSuffix("H  todoitem  D265  text changed\n"), "\(edited)")
        #expect(reads.paths.map { $0.lastPathComponent } == ["d265929e-b17b-42d1-8fab-d0adf26486fa.json"])
    }
}
