import Testing
import TodoBasics
import TodoTestSupport

/// Issue 21 item 3: a local change writes its files in place once the journal holds them: no
/// temp file and rename per file, an fsync per file, and an fsync only of the folders that gain
/// or lose a name (and `.todo/` for the journal). Counted through the file system seam: renames
/// only for the journal, `state.json` (lock-free readers read it outside their retried read) and
/// the stamps of the two indexes, which are not fsynced; no syncfs (it would write back every
/// dirty file of the disk).
@Suite struct CommitSyncGuardTests {
    /// A store with six pending inserts and both indexes built by `doctor`, so that every change
    /// after it keeps them; its file system counts calls.
    static func sixPendingInserts() -> (TempDirectory, CountingFileSystem, CLIHarness) {
        let dir = TempDirectory()
        let fs = CountingFileSystem()
        let cli = CLIHarness(directory: dir.path, fs: fs)
        #expect(cli.run("init").code == 0)
        for i in 0..<6 { #expect(cli.run("add", "item \(i)", "--id", "id-\(i)").code == 0) }
        #expect(cli.run("doctor").out.hasPrefix("ok: "))
        return (dir, fs, cli)
    }

    @Test func localChangesSyncOnceAfterTheJournal() {
        let (dir, fs, cli) = Self.sixPendingInserts()
        defer { dir.remove() }
        let commands: [[String]] = [["add", "one more", "--id", "new-1"], ["edit", "id-3", "--text", "changed"],
                                    ["done", "id-4"], ["rm", "id-5"], ["undone", "id-4"]]
        for args in commands {
            fs.reset()
            let r = cli.run(args)
            let name = "todo " + args.joined(separator: " ")
            #expect(r.code == 0, "\(args): \(r)")
            let written = fs.calls.filter { $0.kind == .write && !$0.path.hasSuffix(".tmp") }.count
            let synced = fs.calls.filter { $0.kind == .syncFile }.map(\.path)
            #expect(synced.count == written + 2, "\(name): the files, the journal and state.json; fsyncs of files \(synced)")
            #expect(!synced.contains { $0.contains("stamp") }, "\(name): \(synced)")
            // `.todo/` twice (the journal, then state.json), and a folder once if it gained or lost a
            // name: an operation, an item (add, rm), a receipt, a page of the pending index.
            let folders = fs.calls.filter { $0.kind == .syncDirectory }.map(\.path)
            #expect(folders.count <= (args[0] == "add" || args[0] == "rm" ? 6 : 4), "\(name): fsyncs of folders \(folders)")
            #expect(Set(folders).count == folders.count - 1, "\(name): \(folders)")
            #expect(fs.count(.syncFileSystem) == 0, "\(name): \(fs.count(.syncFileSystem)) syncfs")
            #expect(fs.count(.rename) <= 4, "\(name): renames \(fs.calls.filter { $0.kind == .rename }.map(\.path))")
            #expect(!fs.fileExists(dir.path + "/.todo/journal.json"))
        }
        #expect(cli.run("doctor").out.hasPrefix("ok: "), "the indexes kept by the changes match the files")
    }

    /// An edit folded into the item's pending operation rewrites that operation under its name:
    /// the index of pending operations names the same files, so no bucket or page of it is
    /// written (a page holds 1,000 names, 76 KB, at 100,000 pending operations).
    @Test func aFoldedEditLeavesThePendingIndexAlone() {
        let (dir, fs, cli) = Self.sixPendingInserts()
        defer { dir.remove() }
        for args in [["edit", "id-3", "--text", "changed"], ["done", "id-4"], ["undone", "id-4"]] {
            fs.reset()
            let r = cli.run(args)
            #expect(r.code == 0 && r.out.contains("folded into pending insert"), "\(args): \(r)")
            let written = fs.calls.filter { ($0.kind == .write || $0.kind == .remove) && $0.path.contains("/.todo/cache/pending/") && !$0.path.contains("stamp") }
            #expect(written.isEmpty, "todo \(args.joined(separator: " ")) wrote \(written.map(\.path))")
        }
        #expect(cli.run("doctor").out.hasPrefix("ok: "), "the index still matches the operation files")
    }
}
