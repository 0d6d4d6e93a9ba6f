import Foundation
import Testing
import TodoBasics
import TodoTestSupport

/// Issue 21 item 4: `diff` and `log` print their first operation before any listing of the
/// queue (they sorted 100,000 names first: 0.7 s of CPU). The index of pending operations keeps
/// the queue in pages of 250 numbers (`.todo/cache/pending/queue-<k>`, `items-<k>`),
/// walked in order. Counted through the file-system seam, never timed: no listing of the
/// operations folder and at most one page read before the first operation file.
@Suite struct QueueFirstLineGuardTests {
    static let commands: [[String]] = [["diff"], ["diff", "--json"], ["log"], ["log", "--json"], ["log", "--table", "todoitem"], ["diff", "--table", "todoitem"]]

    /// Items queued across the edge of two pages (sequences 245 …), an item with operations on
    /// both sides, a delete and a second table; the index of ids and of pending operations built
    /// by `doctor`, then kept by the changes made after it.
    static func store() throws -> (TempDirectory, CLIHarness) {
        let dir = TempDirectory()
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("init").code == 0)
        let statePath = dir.path + "/.todo/state.json"
        let state = try String(contentsOfFile: statePath, encoding: .utf8)
        try state.replacingOccurrences(of: #""nextSequence": 1"#, with: #""nextSequence": 245"#).write(toFile: statePath, atomically: true, encoding: .utf8)
        for i in 0..<8 { #expect(cli.run("add", "item \(i)", "--id", "id-\(i)").code == 0) }
        #expect(cli.run("add", "other", "--id", "o-1", "--table", "other").code == 0)
        #expect(cli.run("doctor").out.hasPrefix("ok: "))
        for args in [["edit", "id-2", "--text", "changed"], ["add", "late", "--id", "id-9"], ["rm", "id-5"], ["done", "id-0"], ["edit", "o-1", "--text", "x", "--table", "other"]] {
            #expect(cli.run(args).code == 0, "\(args)")
        }
        #expect(cli.run("doctor").out.hasPrefix("ok: "), "the pages kept by the changes match the operation files")
        return (dir, cli)
    }

    /// The calls made before the first operation file was read.
    static func beforeFirstOperation(_ fs: CountingFileSystem) -> ArraySlice<CountingFileSystem.Call> {
        let calls = fs.calls
        return calls[..<(calls.firstIndex { $0.kind == .read && $0.path.contains("/.todo/operations/") } ?? calls.count)]
    }

    @Test func theFirstOperationIsReadBeforeAnyListingOfTheQueue() throws {
        let (dir, cli) = try Self.store()
        defer { dir.remove() }
        let expected = Self.commands.map { cli.run($0) }
        let fs = CountingFileSystem()
        for (args, before) in zip(Self.commands, expected) {
            fs.reset()
            let r = CLIHarness(directory: dir.path, fs: fs).run(args)
            #expect(r.code == 0 && r.err == "" && r.out == before.out, "\(args): \(r)")
            let early = Self.beforeFirstOperation(fs)
            #expect(early.count < fs.calls.count, "\(args): an operation file was read")
            #expect(!early.contains { $0.kind == .list && $0.path.hasSuffix("/.todo/operations") }, "\(args): the queue was listed before its first line")
            let pages = early.filter { $0.kind == .read && ($0.path.contains("/cache/pending/queue-") || $0.path.contains("/cache/pending/items-")) }
            #expect(pages.count == 1, "\(args): \(early.map(\.path))")
            #expect(fs.lists(endingWith: "/.todo/operations") == 0, "\(args): the queue was listed")
            #expect(fs.reads(containing: "/.todo/operations/").count <= 12, "\(args): \(fs.reads(containing: "/.todo/operations/").count) operation files read")
        }
    }

    /// The pages give the order the sorts give: the same output with the index deleted (a reader
    /// then sorts; it does not rebuild the index) and with an index of an older version.
    @Test func thePagesGiveTheOrderOfTheSorts() throws {
        let (dir, cli) = try Self.store()
        defer { dir.remove() }
        let paged = Self.commands.map { cli.run($0) }
        let diff = paged[0].out.split(separator: "\n").filter { $0.hasPrefix("todoitem/") || $0.hasPrefix("other/") }.map { $0.prefix { $0 != " " } }
        // id-5 was never sent: its removal took its insert out of the queue.
        #expect(diff == ["todoitem/id-0", "todoitem/id-1", "todoitem/id-2", "todoitem/id-3", "todoitem/id-4", "todoitem/id-6",
                         "todoitem/id-7", "other/o-1", "todoitem/id-9"], "in the order of each item's first operation: \(paged[0].out)")
        #expect(paged[2].out.contains("  #254  insert  todoitem  id-9  \"late\"\n"), "\(paged[2].out)")
        let stamp = dir.path + "/.todo/cache/pending/stamp"
        let kept = try String(contentsOfFile: stamp, encoding: .utf8)
        #expect(kept.hasPrefix("todo pending stamp 4\n"))
        try kept.replacingOccurrences(of: "stamp 4", with: "stamp 3").write(toFile: stamp, atomically: false, encoding: .utf8)
        let fs = CountingFileSystem()
        for (args, first) in zip(Self.commands, paged) {
            fs.reset()
            let older = CLIHarness(directory: dir.path, environment: ["TODO_TEST_SORT_BUDGET": "256"], fs: fs).run(args)
            #expect(older.out == first.out && older.err == "", "\(args): an index of an older version is not trusted: \(older)")
            #expect(fs.lists(endingWith: "/.todo/operations") >= 1, "\(args): sorted")
        }
        try FileManager.default.removeItem(atPath: dir.path + "/.todo/cache/pending")
        for (args, first) in zip(Self.commands, paged) {
            let sorted = CLIHarness(directory: dir.path, environment: ["TODO_TEST_SORT_BUDGET": "256"]).run(args)
            #expect(sorted.out == first.out && sorted.err == "", "\(args): \(sorted)")
        }
    }

    /// A damaged page is an error naming it, with `todo doctor` in its hint; doctor reports it and rebuilds.
    @Test(arguments: ["queue-0000000", "items-0000001"])
    func aDamagedPageNamesDoctor(_ page: String) throws {
        let (dir, cli) = try Self.store()
        defer { dir.remove() }
        let path = dir.path + "/.todo/cache/pending/" + page
        let good = try String(contentsOfFile: path, encoding: .utf8)
        let before = cli.run(page.hasPrefix("queue") ? "log" : "diff")
        // Written in place: the index's stamp still matches the operations folder.
        try "{\"operations\": [".write(toFile: path, atomically: false, encoding: .utf8)
        let r = cli.run(page.hasPrefix("queue") ? "log" : "diff")
        #expect(r.code != 0 && r.err.contains(".todo/cache/pending/\(page): a damaged page of the index of pending operations, derived data"), "\(r)")
        #expect(r.err.contains("restore or remove that file, then run 'todo doctor'"), "\(r)")
        let doctor = cli.run("doctor")
        #expect(doctor.out.contains(page), "\(doctor)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == good)
        #expect(cli.run(page.hasPrefix("queue") ? "log" : "diff").out == before.out)
    }

    /// A sort killed mid-way (`todo diff | head -1` on a long queue) leaves its run folder; the
    /// next `diff` or `log` removes it, though it sorts nothing.
    @Test(arguments: ["diff", "log"])
    func aDeadSortsRunsAreSweptByTheNextWalk(_ command: String) throws {
        let (dir, cli) = try Self.store()
        defer { dir.remove() }
        let dead = dir.path + "/.todo/cache/sort-999999999-3"  // above any pid_max: no such process
        let fs = LocalFileSystem()
        try fs.createDirectory(dead)
        try fs.writeFile(dead + "/run-0", [1, 2, 3], sync: false)
        #expect(cli.run(command).code == 0)
        #expect(!fs.isDirectory(dead), "the dead sort's runs stay")
    }
}
