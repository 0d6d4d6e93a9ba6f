#if canImport(Glibc)
import Glibc
#endif
import Testing
import TodoBasics
import TodoModel
import TodoTestSupport

/// Issue 15 item 8, the rest: editors' leftovers beside the records break nothing, and
/// `todo doctor` finds what a person may do to the files: mistyped or null system properties, a
/// remote URL push cannot use, symbolic links.
@Suite struct StoreFilesTests {
    typealias S = ConflictStores
    static let d265 = "d265929e-b17b-42d1-8fab-d0adf26486fa"

    @Test func editorLeftoversNeverBreakStatusListOrPush() throws {
        let (dir, cli) = try HandEditTests.synced()
        defer { dir.remove() }
        #expect(cli.run("remote", "set", "http://127.0.0.1:9").code == 0)  // nothing listens there
        #expect(cli.run("edit", "d265", "--text", "b").code == 0)
        let op = "0000000001.update.todoitem.\(Self.d265).json"
        let fs = LocalFileSystem()
        let leftovers = [
            "operations/\(op)~", "operations/\(op).bak", "operations/\(op).orig", "operations/.\(op).swp", "operations/\(op).swp",
            "operations/.#\(op)", "operations/notes.tmp",
            "tables/todoitem/items/\(Self.d265).json~", "tables/todoitem/items/\(Self.d265).json.orig",
            "tables/todoitem/items/.#\(Self.d265).json", "tables/todoitem/table.json.bak",
            "conflicts/todoitem.\(Self.d265).json.bak", "receipts/1.json~", "tables/todoitem~", "config.json~", ".#state.json",
        ]
        for folder in ["conflicts", "receipts"] { try fs.createDirectory(dir.sub(".todo/" + folder)) }
        for path in leftovers {
            let source = path.hasPrefix("operations/") ? "operations/\(op)" : path.hasPrefix("tables/todoitem/items") ? "tables/todoitem/items/\(Self.d265).json" : "config.json"
            try fs.writeFile(dir.sub(".todo/" + path), try #require(try fs.readFile(dir.sub(".todo/" + source))), sync: false)
        }
        try fs.createDirectory(dir.sub(".todo/tables/todoitem.bak/items"))  // a backup copy of a table folder
        for args in [["status"], ["status", "--short"], ["status", "--json"], ["list"], ["list", "--all", "--json"], ["log"],
                     ["diff"], ["show", "d265"]] {
            let r = cli.run(args)
            #expect(r.code == 0 && r.err == "", "todo \(args.joined(separator: " ")): \(r)")
        }
        #expect(cli.run("status", "--short").out.hasSuffix("U  todoitem  \(Self.d265.prefix(4))  #1\n"))
        let push = cli.run("push")
        #expect(push.code == 4, "the push reads its queue and goes as far as the network: \(push)")
        #expect(!push.err.contains("not an operation file name") && push.err.contains("127.0.0.1:9"), "\(push)")
        let doctor = cli.run("doctor")
        #expect(doctor.code == 0, "\(doctor)")
        #expect(doctor.out.contains("note: .todo/operations/\(op)~: not a record (an editor's leftover?): todo ignores it\n"))
        #expect(doctor.out.split(separator: "\n").filter { $0.hasPrefix("note: ") }.count == leftovers.count + 1)
    }

    /// The item file of d265 in the synced store, with `edit` applied to its JSON text.
    static func storeWithItem(_ edit: (String) -> String) throws -> (TempDirectory, CLIHarness) {
        let (dir, cli) = try HandEditTests.synced()
        let path = dir.sub(".todo/tables/todoitem/items/\(Self.d265).json")
        let text = String(decoding: try #require(try LocalFileSystem().readFile(path)), as: UTF8.self)
        try LocalFileSystem().writeFile(path, Array(edit(text).utf8), sync: false)
        return (dir, cli)
    }

    @Test(arguments: [
        ("\"ms_version\": \"AAAAAAAAAAE=\"", "\"ms_version\": null",
         "\"ms_version\" is null; todo writes system properties as text as the server sent them, or leaves them out"),
        ("\"ms_version\": \"AAAAAAAAAAE=\"", "\"ms_version\": 1", "\"ms_version\" must be text as the server sent it, found 1"),
        ("\"ms_createdAt\": \"2024-05-01T09:00:00.000Z\"", "\"ms_createdAt\": null",
         "\"ms_createdAt\" is null; todo writes system properties as text as the server sent them, or leaves them out"),
        ("\"ms_updatedAt\": \"2024-05-01T09:00:00.000Z\"", "\"ms_updatedAt\": false", "\"ms_updatedAt\" must be text as the server sent it, found false"),
    ])
    func doctorFindsNullOrMistypedSystemProperties(_ c: (String, String, String)) throws {
        let (dir, cli) = try Self.storeWithItem { $0.replacingOccurrences(of: c.0, with: c.1) }
        defer { dir.remove() }
        let doctor = cli.run("doctor")
        #expect(doctor.code == 1 && doctor.out.hasPrefix(".todo/tables/todoitem/items/\(Self.d265).json: \(c.2)\n"), "\(doctor)")
        // Every command that reads the item says so too.
        let show = cli.run("show", "d265")
        #expect(show.code == 1 && show.err.hasPrefix("error: .todo/tables/todoitem/items/\(Self.d265).json: \(c.2)\n"), "\(show)")
    }

    @Test func doctorFindsARemoteURLPushCannotUse() throws {
        let (dir, cli) = try HandEditTests.synced()
        defer { dir.remove() }
        let path = dir.sub(".todo/config.json")
        let text = String(decoding: try #require(try LocalFileSystem().readFile(path)), as: UTF8.self)
        try LocalFileSystem().writeFile(path, Array(text.replacingOccurrences(of: "http://127.0.0.1:8080", with: "ftp://example.com").utf8), sync: false)
        let doctor = cli.run("doctor")
        #expect(doctor.code == 1)
        #expect(doctor.out.hasPrefix(".todo/config.json: \"remote\" is \"ftp://example.com\": 'ftp://example.com' is not an http or https URL; use http://HOST[:PORT][/PATH]; push and pull cannot use it (set another with 'todo remote set URL')\n"), "\(doctor)")
    }

    @Test func doctorFindsSymbolicLinks() throws {
        let (dir, cli) = try HandEditTests.synced()
        defer { dir.remove() }
        let fs = LocalFileSystem()
        let item = dir.sub(".todo/tables/todoitem/items/\(Self.d265).json")
        try fs.writeFile(dir.sub("elsewhere.json"), try #require(try fs.readFile(item)), sync: false)
        try fs.removeFile(item)
        #expect(symlink(dir.sub("elsewhere.json"), item) == 0)
        #expect(cli.run("status").code == 0, "the link is followed when read")
        let doctor = cli.run("doctor")
        #expect(doctor.code == 1 && doctor.out.hasPrefix("""
            .todo/tables/todoitem/items/\(Self.d265).json: a symbolic link: todo replaces a file when it writes it, so the link's target would silently stop being the store's; put the file itself here

            """), "\(doctor)")
    }
}
