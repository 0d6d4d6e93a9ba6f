import Testing
import TodoBasics
import TodoCLI
import TodoTestSupport

/// A file in the operations folder that todo cannot read as an operation: a name it does not
/// give, or one of its names holding bad JSON. `status` and `push`, which list the folder, refused
/// it; `log` and `diff` walking the pages of the index of pending operations (rebuilt, by doctor or
/// a local change, with the file there) skipped a name they could not parse. Now every command that
/// reads the whole queue refuses it with the same error, and changes nothing.
@Suite struct StrayOperationFileTests {
    static let readers: [[String]] = [["status"], ["status", "--json"], ["push"], ["log"], ["log", "--json"], ["diff"], ["diff", "--json"]]

    enum Stray: String, CaseIterable, Sendable {
        case unknownName, badJSON

        var name: String { self == .unknownName ? "notes.txt" : "0000000003.insert.todoitem.stray.json" }
        var bytes: String { self == .unknownName ? "a note\n" : "{\"sequence\": 3,\n" }
        var error: String {
            self == .unknownName
                ? "error: .todo/operations/notes.txt: not an operation file name; expected <sequence>.<kind>.<table>.<id>.json\n"
                : "error: .todo/operations/0000000003.insert.todoitem.stray.json: invalid JSON: "
        }
    }

    /// Two pending inserts and the stray file, put there before the second: that local change
    /// rebuilds the index of pending operations from the folder as it is, stray and all, and keeps
    /// it. Without `indexed`, the index's stamp is then removed, so readers list the folder.
    static func store(_ stray: Stray, indexed: Bool) throws -> (TempDirectory, CLIHarness) {
        let dir = TempDirectory()
        Fixtures.copy("Stores/synced", to: dir.path)
        let cli = CLIHarness(directory: dir.path)
        let fs = LocalFileSystem(), stamp = dir.path + "/.todo/cache/pending/stamp"
        #expect(cli.run("add", "Buy milk", "--id", "milk").code == 0)
        try fs.writeFile(dir.path + "/.todo/operations/" + stray.name, Array(stray.bytes.utf8), sync: false)
        #expect(cli.run("add", "Buy bread", "--id", "bread").code == 0)
        #expect(fs.fileExists(stamp), "the index vouches for the folder")
        if !indexed { try fs.removeFile(stamp) }
        return (dir, cli)
    }

    @Test(arguments: Stray.allCases, [false, true])
    func everyReaderOfTheQueueRefusesItTheSameWay(_ stray: Stray, _ indexed: Bool) throws {
        for args in Self.readers {
            let (dir, cli) = try Self.store(stray, indexed: indexed)
            defer { dir.remove() }
            let before = snapshot(dir.path)
            let result = cli.run(args)
            #expect(result.code != 0, "\(args), indexed \(indexed): \(result)")
            #expect(result.err.hasPrefix(stray.error), "\(args), indexed \(indexed): \(result)")
            #expect(result.err.contains("hint: restore or remove that file, then run 'todo doctor'"), "\(args): \(result)")
            #expect(changedPaths(snapshot(dir.path), before) == [], "\(args) changed the store")
        }
    }
}
