import Testing
import TodoBasics
import TodoTestSupport

/// Issue 21 item 3: a local change pays for one commit point and one durability point, whatever
/// it writes. Counted through the file system seam: the journal's fsync and its folder's, one
/// syncfs for the files the journal holds (written in place, no fsync each), and renames only
/// for the journal, `state.json` (read by lock-free readers outside their retried read) and the
/// stamps of the two indexes.
@Suite struct CommitSyncGuardTests {
    @Test func localChangesSyncOnceAfterTheJournal() {
        let dir = TempDirectory()
        defer { dir.remove() }
        let fs = CountingFileSystem()
        let cli = CLIHarness(directory: dir.path, fs: fs)
        #expect(cli.run("init").code == 0)
        for i in 0..<6 { #expect(cli.run("add", "item \(i)", "--id", "id-\(i)").code == 0) }
        #expect(cli.run("doctor").out.hasPrefix("ok: "))  // the indexes, kept by every change below
        let commands: [[String]] = [["add", "one more", "--id", "new-1"], ["edit", "id-3", "--text", "changed"],
                                    ["done", "id-4"], ["rm", "id-5"], ["undone", "id-4"]]
        for args in commands {
            fs.reset()
            let r = cli.run(args)
            let name = "todo " + args.joined(separator: " ")
            #expect(r.code == 0, "\(args): \(r)")
            #expect(fs.count(.syncFile) == 1, "\(name): fsyncs of files \(fs.calls.filter { $0.kind == .syncFile }.map(\.path))")
            #expect(fs.count(.syncDirectory) == 1, "\(name): fsyncs of folders \(fs.calls.filter { $0.kind == .syncDirectory }.map(\.path))")
            #expect(fs.count(.syncFileSystem) == 1, "\(name): \(fs.count(.syncFileSystem)) syncfs")
            #expect(fs.count(.rename) <= 4, "\(name): renames \(fs.calls.filter { $0.kind == .rename }.map(\.path))")
            #expect(!fs.fileExists(dir.path + "/.todo/journal.json"))
        }
        #expect(cli.run("doctor").out.hasPrefix("ok: "), "the indexes kept by the changes match the files")
    }

    /// An edit folded into the item's pending operation rewrites that operation under its name:
    /// the index of pending operations names the same files, so no bucket or page of it is
    /// written (a page holds 1,000 names, 76 KB, at 100,000 pending operations).
    @Test func aFoldedEditLeavesThePendingIndexAlone() {
        let dir = TempDirectory()
        defer { dir.remove() }
        let fs = CountingFileSystem()
        let cli = CLIHarness(directory: dir.path, fs: fs)
        #expect(cli.run("init").code == 0)
        for i in 0..<6 { #expect(cli.run("add", "item \(i)", "--id", "id-\(i)").code == 0) }
        #expect(cli.run("doctor").out.hasPrefix("ok: "))
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
