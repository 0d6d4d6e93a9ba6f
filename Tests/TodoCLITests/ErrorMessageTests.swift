import Testing
import TodoBasics
import TodoTestSupport

/// Error text and exit codes are part of the interface: each is checked exactly.
@Suite struct ErrorMessageTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var fixture: String?
        var args: [String]
        var err: String
        var code: Int32
        var testDescription: String { args.joined(separator: " ") }
    }

    static let cases: [Case] = [
        Case(fixture: nil, args: ["frobnicate"], err: "error: 'frobnicate' is not a todo command\nhint: see 'todo --help' for the list of commands\n", code: 2),
        Case(fixture: nil, args: ["status"], err: "error: not a todo replica: no .todo directory in '<dir>' or any parent\nhint: run 'todo init' to create one here, or set TODO_DIR to the replica's .todo directory\n", code: 1),
        Case(fixture: "synced", args: ["add"], err: "error: missing TEXT (the item's text)\nhint: see 'todo add --help'\n", code: 2),
        Case(fixture: "synced", args: ["add", "x", "--bogus"], err: "error: unknown option '--bogus' for 'todo add'\nhint: see 'todo add --help'\n", code: 2),
        Case(fixture: "synced", args: ["add", "x", "--id"], err: "error: option '--id' needs a value (--id ID)\nhint: see 'todo add --help'\n", code: 2),
        Case(fixture: "synced", args: ["edit", "d265"], err: "error: nothing to change; give --text, --complete, --incomplete, --set or --unset\nhint: see 'todo edit --help'\n", code: 2),
        Case(fixture: "synced", args: ["edit", "d265", "--complete", "--incomplete"], err: "error: --complete and --incomplete exclude each other\nhint: see 'todo edit --help'\n", code: 2),
        Case(fixture: "synced", args: ["edit", "d2", "--text", "z"], err: "error: id prefix 'd2' is ambiguous: it matches 2 items (D265929E-B17B-42D1-8FAB-D0ADF26486FA, d2a1c3f0-0000-4000-8000-000000000002)\nhint: give more characters of the id\n", code: 1),
        Case(fixture: "synced", args: ["edit", "nope", "--text", "z"], err: "error: no such item nope\nhint: list the items with 'todo list --all'\n", code: 1),
        Case(fixture: "synced", args: ["add", "x", "--id", "d265929e-b17b-42d1-8fab-d0adf26486fa"], err: "error: item D265929E-B17B-42D1-8FAB-D0ADF26486FA already exists\nhint: change it with 'todo edit D265'\n", code: 1),
        Case(fixture: "synced", args: ["add", "x", "--id", "a/b"], err: "error: invalid id: id contains '/'; ids cannot contain \" + ? \\ / or `\nhint: choose another id\n", code: 1),
        Case(fixture: "synced", args: ["edit", "d265", "--set", "__v=1"], err: "error: \"__v\" is reserved: names starting with '__' are system properties\nhint: choose another field name\n", code: 1),
        Case(fixture: "synced", args: ["edit", "d265", "--set", "ms_v=1"], err: "error: \"ms_v\" is reserved: names starting with 'ms_' are system properties\nhint: choose another field name\n", code: 1),
        Case(fixture: "synced", args: ["edit", "d265", "--set", "version=1"], err: "error: \"version\" is reserved: it is a system property\nhint: choose another field name\n", code: 1),
        Case(fixture: "synced", args: ["edit", "d265", "--set", "ID=1"], err: "error: \"ID\" is reserved: the identity is 'id' and cannot be set as a field\nhint: choose another field name\n", code: 1),
        Case(fixture: "synced", args: ["edit", "d265", "--set", "note=hello"], err: "error: the value of 'note' is not JSON: hello\nhint: quote strings as JSON: --set 'note=\"hello\"'\n", code: 1),
        Case(fixture: "synced", args: ["edit", "d265", "--set", "tags=[1]"], err: "error: the value of 'tags' is array; values are strings, numbers, booleans or null\nhint: store structured data as a JSON string\n", code: 1),
        Case(fixture: "synced", args: ["edit", "d265", "--set", "complete=\"yes\""], err: "error: 'complete' must be true or false, not string\nhint: use --complete or --incomplete\n", code: 1),
        Case(fixture: "synced", args: ["list", "--table", "nosuch"], err: "error: no table 'nosuch' in this replica\nhint: tables here: todoitem; if the server has it, 'todo pull --table nosuch' brings it ('todo pull --all-tables' brings every table the server has); 'todo add --table nosuch' creates it\n", code: 1),
        Case(fixture: "synced", args: ["list", "--table", "no-such"], err: "error: 'no-such' is not a valid table name; use 1 to 128 letters, digits and '_', starting with a letter or '_'\nhint: see 'todo --help'\n", code: 2),
        Case(fixture: "conflict", args: ["edit", "d265", "--text", "z"], err: "error: item D265929E-B17B-42D1-8FAB-D0ADF26486FA has an unresolved conflict; run 'todo resolve D265929E-B17B-42D1-8FAB-D0ADF26486FA'\nhint: see the copies with 'todo diff D265'\n", code: 1),
        Case(fixture: "conflict", args: ["rm", "d265"], err: "error: item D265929E-B17B-42D1-8FAB-D0ADF26486FA has an unresolved conflict; run 'todo resolve D265929E-B17B-42D1-8FAB-D0ADF26486FA'\nhint: see the copies with 'todo diff D265'\n", code: 1),
        Case(fixture: "unknown-format", args: ["status"], err: "error: <dir>/.todo/format.json: \"format\" is 2; this version of todo reads format 1 only\nhint: restore or remove that file, then run 'todo doctor'\n", code: 1),
        Case(fixture: "corrupt-operation", args: ["status", "--json"], err: "error: .todo/operations/0000000001.insert.todoitem.1d0b14e4-db01-4fed-b346-6f8a7b81a989.json: \"kind\" is \"upsert\"; expected insert, update or delete\nhint: restore or remove that file, then run 'todo doctor'\n", code: 1),
        Case(fixture: "synced", args: ["push", "--jobs", "0"], err: "error: '--jobs 0' must be a number from 1 to 1024\nhint: see 'todo push --help'\n", code: 2),
        Case(fixture: "synced", args: ["push", "--jobs", "1025"], err: "error: '--jobs 1025' must be a number from 1 to 1024\nhint: see 'todo push --help'\n", code: 2),
        Case(fixture: "synced", args: ["init"], err: "error: a todo replica already exists at '<dir>/.todo'\nhint: use the existing replica, or remove its .todo directory first\n", code: 1),
        Case(fixture: nil, args: ["init", "--remote", "ftp://x"], err: "error: 'ftp://x' is not an http or https URL; use http://HOST[:PORT][/PATH]\nhint: see 'todo init --help'\n", code: 2),
        Case(fixture: nil, args: ["init", "--protocol", "g3"], err: "error: '--protocol g3' is not a protocol; use mobile-apps or mobile-services\nhint: see 'todo init --help'\n", code: 2),
    ]

    @Test(arguments: cases)
    func messageAndExitCode(_ c: Case) throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        if let fixture = c.fixture { Fixtures.copy("Stores/\(fixture)", to: dir.path) }
        let before = snapshot(dir.path)
        let result = CLIHarness(directory: dir.path).run(c.args)
        #expect(result.err.replacingOccurrences(of: dir.path, with: "<dir>") == c.err)
        #expect(result.code == c.code)
        #expect(result.out.isEmpty)
        if c.args.first != "init" {
            #expect(changedPaths(snapshot(dir.path), before) == [], "a refused command changes nothing")
        }
    }
}

/// Every file under `dir` (except the lock file) and its bytes.
func snapshot(_ dir: String) -> [String: String] {
    var result: [String: String] = [:]
    let fs = LocalFileSystem()
    func walk(_ path: String, _ relative: String) {
        for name in (try? fs.listDirectory(path)) ?? [] where name != "lock" {
            let child = path.appendingPath(name), rel = relative.isEmpty ? name : relative + "/" + name
            if rel == ".todo/cache" { continue }  // derived data that reading commands may refresh (ItemStampCache)
            if fs.isDirectory(child) { walk(child, rel) } else { result[rel] = (try? fs.readFile(child)).flatMap { $0 }.map { String(decoding: $0, as: UTF8.self) } }
        }
    }
    walk(dir, "")
    return result
}

/// The paths whose content differs between two snapshots, for short failure messages.
func changedPaths(_ a: [String: String], _ b: [String: String]) -> [String] {
    Set(a.keys).union(b.keys).filter { a[$0] != b[$0] }.sorted()
}
