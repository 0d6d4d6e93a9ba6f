#if canImport(Glibc)
import Glibc
#endif
import Testing
import TodoBasics
import TodoCLI
import TodoTestSupport

/// Issue 21: a `purge` or `table rm` cut off after its commit point, its item files not removed
/// (`ItemRemoval`), is finished by the next command, reader or writer, before it shows anything;
/// `doctor` on a store it cannot write says what is left and what finishes it.
@Suite struct InterruptedRemovalTests {
    static let item = ".todo/tables/todoitem/items/d265929e-b17b-42d1-8fab-d0adf26486fa.json"

    /// The synced store (2 items) after `args`, whose removals of item files all failed.
    static func interrupted(_ dir: String, _ args: [String]) {
        Fixtures.copy("Stores/synced", to: dir)
        let blocked = FaultyFileSystem(base: LocalFileSystem(), plan: .matching { op, path in op == "remove" && path.contains("/items/") }, code: EIO)
        let r = FailureCampaign.run(args, in: dir, fs: blocked)
        #expect(r.code == 0 && r.err.hasPrefix("warning: the change is saved, but writing its files did not finish: "), "\(r)")
        #expect(LocalFileSystem().fileExists(dir + "/.todo/removal/marker.json"), "the marker stays")
        #expect(LocalFileSystem().fileExists(dir + "/" + item), "the item file stays")
    }

    @Test(arguments: [["purge"], ["table", "rm", "todoitem"]])
    func theNextReaderFinishesIt(_ args: [String]) {
        let temp = TempDirectory()
        defer { temp.remove() }
        Self.interrupted(temp.path, args)
        let list = CLIHarness(directory: temp.path).run("list", "--all")
        #expect(!list.out.contains("Pay rent") && !list.out.contains("Mobile Services"), "\(list)")
        if args[0] == "purge" {
            #expect(list.code == 0 && list.err == "", "\(list)")
        } else {
            #expect(list.code == 1 && list.err.hasPrefix("error: no table 'todoitem' in this replica\n"), "\(list)")
        }
        #expect(!LocalFileSystem().fileExists(temp.sub(Self.item)))
        #expect(!LocalFileSystem().fileExists(temp.sub(".todo/removal")), "the lists and the marker are gone")
        #expect(LocalFileSystem().fileExists(temp.sub(".todo/tables/todoitem")) == (args[0] == "purge"))
        #expect(CLIHarness(directory: temp.path).run("doctor").code == 0)
    }

    @Test func doctorSaysWhatItCouldNotFinish() {
        let temp = TempDirectory()
        defer { temp.remove() }
        Self.interrupted(temp.path, ["purge"])
        let readOnly = FaultyFileSystem(base: LocalFileSystem(), plan: .matching { _, _ in true }, code: EROFS)
        let doctor = FailureCampaign.run(["doctor"], in: temp.path, fs: readOnly)
        #expect(doctor.code == 1, "\(doctor)")
        #expect(doctor.out.contains(".todo/removal/marker.json: 'todo purge' of table todoitem has happened, but its item files are not all "
                                    + "removed yet: "), "\(doctor)")
        #expect(doctor.out.contains("; any todo command that can write the folder removes them\n"), "\(doctor)")
        #expect(LocalFileSystem().fileExists(temp.sub(Self.item)), "doctor wrote nothing")
        #expect(CLIHarness(directory: temp.path).run("doctor").code == 0, "a writer finishes it")
        #expect(!LocalFileSystem().fileExists(temp.sub(Self.item)))
    }

    /// Lists written by a purge that died before its commit point: the purge did not happen, and
    /// the next writer deletes them.
    @Test func listsWithoutAMarkerAreDeleted() throws {
        let temp = TempDirectory()
        defer { temp.remove() }
        Fixtures.copy("Stores/synced", to: temp.path)
        let path = "tables/todoitem/items/d265929e-b17b-42d1-8fab-d0adf26486fa.json"
        try LocalFileSystem().createDirectory(temp.sub(".todo/removal"))
        try LocalFileSystem().writeFile(temp.sub(".todo/removal/000000.json"), Array("{\"paths\": [\"\(path)\"]}\n".utf8), sync: false)
        let doctor = CLIHarness(directory: temp.path).run("doctor")
        #expect(doctor.code == 0, "\(doctor)")
        #expect(LocalFileSystem().fileExists(temp.sub(Self.item)), "nothing was removed")
        #expect(!LocalFileSystem().fileExists(temp.sub(".todo/removal")))
    }
}
