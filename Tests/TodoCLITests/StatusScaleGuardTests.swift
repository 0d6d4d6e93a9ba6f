import Testing
import TodoBasics
import TodoModel
import TodoStore
import TodoTestSupport

/// Issue 21: `todo status` on a long queue holds a batch of operations and a sort's budget of
/// names, never the queue (it held every operation, and every id of the table for its short
/// ids: 1,972 MB at a million pending inserts), and reads each operation file once, also for
/// `--json` (it read them twice). Counted through status's own figures and the file-system seam
/// under small test sizes (never timed); what it prints does not depend on them.
@Suite struct StatusScaleGuardTests {
    static let n = 120
    /// Batches of 8 operations, a sort budget of 2 KB (some 20 names).
    static let small = ["TODO_TEST_ITEM_BATCH": "8", "TODO_TEST_SORT_BUDGET": "2048"]
    static let forms = [["status"], ["status", "--short"], ["status", "--json"], ["status", "--short", "--table", "todoitem"]]

    /// The synced store with `n` pending inserts, an update, a delete, a conflict that holds an
    /// operation, and a hand edit.
    static func store() throws -> (TempDirectory, CountingFileSystem, Int) {
        let (dir, cli) = try HandEditTests.synced()
        for i in 0..<n { #expect(cli.run("add", "new \(i)", "--id", "new-\(i)").code == 0) }
        #expect(cli.run("edit", "new-3", "--text", "changed").code == 0)
        #expect(cli.run("edit", "d265", "--text", "changed too").code == 0)
        #expect(cli.run("rm", "new-5").code == 0 || true)
        try ConflictStores.recordConflict(dir.path, id: "new-7", server: ConflictStores.server("new-7", ["text": "theirs"]))
        try HandEditTests.handEdit(dir.path, "tables/todoitem/items/new-9.json", "new 9", "new nine")
        let pending = ((try? LocalFileSystem().listDirectory(dir.sub(".todo/operations"))) ?? nil ?? []).filter { $0.hasSuffix(".json") }.count
        #expect(pending >= n)
        return (dir, CountingFileSystem(), pending)
    }

    /// "status held at most O operations and N names; the queue was sorted in R runs" → (O, N, R).
    static func figures(_ err: String) -> [Int]? {
        guard let line = err.split(separator: "\n").first(where: { $0.hasPrefix("status held at most ") }) else { return nil }
        let numbers = line.split(whereSeparator: { $0 == " " || $0 == ";" }).compactMap { Int($0) }
        return numbers.count == 3 ? numbers : nil
    }

    static func check(_ dir: TempDirectory, _ fs: CountingFileSystem, pending: Int) throws {
        for args in forms {
            let roomy = CLIHarness(directory: dir.path).run(args)
            #expect(roomy.code == 0, "\(args): \(roomy)")
            fs.reset()
            let tight = CLIHarness(directory: dir.path, environment: Self.small, fs: fs).run(args)
            #expect(tight.code == 0 && tight.out == roomy.out, "\(args): the same output whatever the budgets")
            let figures = try #require(Self.figures(tight.err), "status says what it held: \(tight.err)")
            #expect(figures[0] <= 8 + 2, "\(args): a batch of operations (an item's together), not the queue: \(figures)")
            #expect(figures[1] <= pending / 2, "\(args): the sorts' budget of names, not every name: \(figures)")
            #expect(figures[2] >= 2, "\(args): the names went through runs on disk: \(figures)")
            // The text forms' hint for the conflict reads its item's operations again (`ResolveHint`).
            let reads = fs.reads(containing: "/operations/").filter { !$0.hasSuffix(".todoitem.new-7.json") }
            #expect(reads.count == pending - 1 && Set(reads).count == reads.count, "\(args): each operation read once: \(reads.count) of \(pending - 1)")
        }
    }

    @Test func statusHoldsABatchOfTheQueue() throws {
        let (dir, fs, pending) = try Self.store()
        defer { dir.remove() }
        let short = CLIHarness(directory: dir.path).run("status", "--short").out
        #expect(short.contains("I! todoitem  new-7  #"), "the held insert: \(short)")
        #expect(short.contains("H  todoitem  new-9  text changed"), "the hand edit: \(short)")
        #expect(short.contains("C  todoitem  new-7  "), "the conflict: \(short)")
        try Self.check(dir, fs, pending: pending)
    }

    /// Without an index of pending operations that vouches for the folder (a store written by
    /// another tool, or changed by hand), the same.
    @Test func aStaleIndexChangesNothing() throws {
        let (dir, fs, pending) = try Self.store()
        defer { dir.remove() }
        try LocalFileSystem().removeFile(dir.sub(".todo/cache/pending/stamp"))
        try Self.check(dir, fs, pending: pending)
    }
}
