#if canImport(Glibc)
import Glibc
#endif
import Testing
import TodoBasics
import TodoCLI
import TodoModel
import TodoTestSupport

/// Issue 15 item 9: a store that cannot be written still reads. `status`, `list`, `show`, `diff`,
/// `log` and `doctor` work on a read-only folder, and show a committed change that could not be
/// written to its files (its journal is applied in memory), while writers fail and change nothing.
///
/// The folder is made read-only for real (`ReadOnlyFolder`: chmod, or the immutable attribute
/// when the tests run as root); where neither works, and in the `.seam` case always, every
/// write goes through a file system that refuses it (EROFS).
@Suite struct ReadOnlyStoreTests {
    enum Protection: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case realFolder, seam
        var testDescription: String { rawValue }
    }

    /// A read-only store: the folder protected (or the seam), and the file system commands use.
    struct Guarded {
        let dir: String
        let method: ReadOnlyFolder.Method?
        let fs: any FileSystem

        init(_ dir: String, _ protection: Protection) {
            self.dir = dir
            method = protection == .realFolder ? ReadOnlyFolder.protect(dir) : nil
            if method == nil {
                // Every write refused, as a read-only mount refuses it.
                fs = FaultyFileSystem(base: LocalFileSystem(), plan: .matching { _, _ in true }, code: EROFS)
            } else {
                fs = LocalFileSystem()
            }
        }

        func run(_ args: String...) -> CLIResult { FailureCampaign.run(args, in: dir, fs: fs) }

        func release() { if let method { ReadOnlyFolder.release(dir, method) } }
    }

    /// The synced store after `todo add "Buy milk" --id milk` whose item file could not be
    /// written (the write stopped half way, as in a crash): committed, reported with a warning,
    /// and the item file torn, which only the journal on disk covers.
    static func storeWithUnfinishedAdd(_ dir: String) throws {
        Fixtures.copy("Stores/synced", to: dir)
        let item = dir + "/.todo/tables/todoitem/items/milk.json"
        let blocked = FaultyFileSystem(base: LocalFileSystem(), plan: .matching { op, path in op == "write" && path == item })
        let r = FailureCampaign.run(["add", "Buy milk", "--id", "milk"], in: dir, fs: blocked)
        #expect(r.code == 0 && r.out == "milk\n")
        #expect(r.err.hasPrefix("warning: the change is saved, but writing its files did not finish: cannot write '\(item)'"), "\(r)")
        #expect(LocalFileSystem().fileExists(dir + "/.todo/journal.json"))
        let torn = try #require(try LocalFileSystem().readFile(item))
        #expect((try? JSONValue.parse(torn)) == nil, "half an item file")
    }

    @Test(arguments: Protection.allCases)
    func readersShowAnUnfinishedCommitOfAReadOnlyStore(_ protection: Protection) throws {
        let temp = TempDirectory()
        defer { temp.remove() }
        try Self.storeWithUnfinishedAdd(temp.path)
        let before = snapshot(temp.path)
        let store = Guarded(temp.path, protection)
        defer { store.release() }
        if protection == .realFolder && store.method == nil {
            print("ReadOnlyStoreTests: neither chmod nor the immutable attribute stops writes here; using the seam")
        }
        #expect(store.method == nil || ReadOnlyFolder.creationFails(in: temp.sub(".todo")), "the folder is really read-only")

        let warning = "warning: shown with a committed change that is not written to its files yet ("
        let status = store.run("status")
        #expect(status.code == 0)
        #expect(status.out.contains("Pending operations: 1\n") && status.out.contains("  todoitem: 1 insert\n"), "\(status)")
        #expect(status.err.hasPrefix(warning), "\(status)")
        #expect(status.err.hasSuffix("hint: nothing is lost: .todo/journal.json holds it; once the folder can be written, any todo command (or 'todo doctor') finishes it\n"))

        let list = store.run("list", "--all")
        #expect(list.code == 0 && list.out.contains("milk  [ ] Buy milk  (pending insert)\n"), "\(list)")
        let show = store.run("show", "milk")
        #expect(show.code == 0 && show.out.contains("text:      \"Buy milk\"\n") && show.out.contains("pending:   insert #1\n"), "\(show)")
        let diff = store.run("diff", "milk")
        #expect(diff.code == 0 && diff.out.contains("Buy milk"), "\(diff)")
        let log = store.run("log")
        #expect(log.code == 0 && log.out.contains("  #1  insert  todoitem  milk  \"Buy milk\"\n"), "\(log)")
        for r in [list, show, diff, log] { #expect(r.err.hasPrefix(warning), "\(r)") }

        let doctor = store.run("doctor")
        #expect(doctor.code == 1, "\(doctor)")
        #expect(doctor.out.contains(".todo/journal.json: a committed change is not written to its files yet: "), "\(doctor)")
        #expect(doctor.out.hasSuffix(" (1 table, 3 items, 1 pending operation, 0 conflicts, 0 receipts)\n"),
                "doctor counts the store as it will be: \(doctor)")

        let writer = store.run("add", "Pay rent")
        #expect(writer.code == 1 && writer.out == "" && writer.err.hasPrefix("error: "), "\(writer)")
        #expect(changedPaths(snapshot(temp.path), before) == [], "nothing was written")

        // Writable again: the next command finishes the commit, then makes its own change.
        store.release()
        let cli = CLIHarness(directory: temp.path)
        #expect(cli.run("add", "Pay rent", "--id", "rent").code == 0)
        let after = cli.run("list", "--all")
        #expect(after.out.hasSuffix("milk  [ ] Buy milk  (pending insert)\nrent  [ ] Pay rent  (pending insert)\n") && after.err == "", "\(after)")
        let clean = cli.run("doctor")
        #expect(clean.code == 0, "\(clean)")
    }

    @Test(arguments: Protection.allCases)
    func everyReaderWorksOnAReadOnlyStore(_ protection: Protection) throws {
        let temp = TempDirectory()
        defer { temp.remove() }
        Fixtures.copy("Stores/conflict", to: temp.path)
        let before = snapshot(temp.path)
        let store = Guarded(temp.path, protection)
        defer { store.release() }
        #expect(store.method == nil || ReadOnlyFolder.creationFails(in: temp.sub(".todo")), "the folder is really read-only")
        for args in [["status"], ["status", "--json"], ["list", "--all"], ["show", "d265"], ["diff"], ["diff", "d265"], ["log"]] {
            let r = FailureCampaign.run(args, in: temp.path, fs: store.fs)
            #expect(r.code == 0 && r.err == "", "todo \(args.joined(separator: " ")): \(r)")
        }
        let doctor = store.run("doctor")
        #expect(doctor.code == 0 && doctor.out == "ok: 1 table, 2 items, 1 pending operation, 1 conflict, 0 receipts\n", "\(doctor)")
        #expect(changedPaths(snapshot(temp.path), before) == [])
    }
}
