#if canImport(Glibc)
import Glibc
#endif
import Testing
import TableProtocol
import TodoBasics
import TodoModel
import TodoTestSupport
@testable import TodoServer

/// Issue 17 item 6: per-table settings from `--table-config FILE` and `--tables name:setting`,
/// what a bad file says (file, table and key), and that a table's log keeps its settings across a
/// restart, refusing a start that would change them.
@Suite struct TableConfigTests {
    static func options(_ args: [String]) throws(ServerOptions.Problem) -> ServerOptions {
        try ServerOptions.parse(args, environment: [:])
    }

    static func problem(_ args: [String]) -> String? {
        do { _ = try options(args) } catch { return error.message }
        return nil
    }

    /// Writes `text` as a config file and returns the problem `--table-config` finds in it.
    static func fileProblem(_ text: String, _ dir: TempDirectory) throws -> String? {
        let path = dir.sub("tables.json")
        try LocalFileSystem().writeFile(path, Array(text.utf8), sync: false)
        return problem(["--table-config", path])
    }

    @Test func aConfigFileNamesTablesAndTheirSettings() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let path = dir.sub("tables.json")
        try LocalFileSystem().writeFile(path, Array(#"""
            {"tables": {"todoitem": {"softDelete": true, "idType": "string", "dynamicSchema": true},
                        "counters": {"idType": "autoIncrement", "softDelete": false,
                                     "dynamicSchema": false, "columns": {"name": "string", "count": "number"}}}}
            """#.utf8), sync: false)
        let o = try Self.options(["--table-config", path])
        #expect(o.service.tables == ["counters", "todoitem"])
        #expect(o.service.tableOptions["counters"] == TableOptions(softDelete: false, idType: .autoIncrement, dynamicSchema: false,
                                                                   columns: ["name": .string, "count": .number]))
        #expect(o.service.tableOptions["todoitem"] == TableOptions(softDelete: true, idType: .string, dynamicSchema: true))
        // With --tables too, the tables of both are served.
        let both = try Self.options(["--tables", "extra:hardDelete", "--table-config", path])
        #expect(both.service.tables == ["extra", "counters", "todoitem"])
        #expect(both.service.tableOptions["extra"] == TableOptions(softDelete: false))
        // Neither: todoitem, with the defaults.
        #expect(try Self.options([]).service.tables == ["todoitem"] && Self.options([]).service.tableOptions.isEmpty)
    }

    @Test func theShortFormOfTables() throws {
        let o = try Self.options(["--tables", "todoitem,counters:autoIncrement:hardDelete,Notes:fixedSchema:softDelete"])
        #expect(o.service.tables == ["todoitem", "counters", "Notes"])
        #expect(o.service.tableOptions["todoitem"] == TableOptions())
        #expect(o.service.tableOptions["counters"] == TableOptions(softDelete: false, idType: .autoIncrement))
        #expect(o.service.tableOptions["notes"] == TableOptions(softDelete: true, dynamicSchema: false))
        #expect(Self.problem(["--tables", "counters:autoincrementt"]) == "--tables 'counters:autoincrementt': unknown setting "
            + "'autoincrementt' for table 'counters'; use softDelete or hardDelete, string or autoIncrement, dynamicSchema or "
            + "fixedSchema (or --table-config FILE)")
        #expect(Self.problem(["--tables", "t:hardDelete:softDelete"])
            == "--tables 't:hardDelete:softDelete': the settings of 't' contradict each other; give one of each pair")
        #expect(Self.problem(["--tables", "a,my-table"])
            == "--tables: 'my-table' is not a valid table name; use 1 to 128 letters, digits and '_', starting with a letter or '_'")
    }

    @Test func aBadConfigFileSaysWhereTheProblemIs() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let f = "the table config file '\(dir.sub("tables.json"))'"
        #expect(Self.problem(["--table-config", dir.sub("missing.json")])
            == "the table config file '\(dir.sub("missing.json"))' does not exist")
        #expect(try Self.fileProblem("{", dir)?.hasPrefix("\(f) is not valid JSON: ") == true)
        #expect(try Self.fileProblem("[]", dir) == #"\#(f) must be a JSON object with a "tables" object, e.g. {"tables": {"todoitem": {"softDelete": true}}}"#)
        #expect(try Self.fileProblem(#"{"tables": {}, "users": {}}"#, dir)
            == #"\#(f): unknown key "users"; the file has one key, "tables", e.g. {"tables": {"todoitem": {"softDelete": true}}}"#)
        #expect(try Self.fileProblem(#"{"tables": {"a-b": {}}}"#, dir)
            == "\(f): 'a-b' is not a valid table name; use 1 to 128 letters, digits and '_', starting with a letter or '_'")
        #expect(try Self.fileProblem(#"{"tables": {"T": {}, "t": {}}}"#, dir)
            == "\(f): tables 'T' and 't' are one table (table names ignore case); keep one")
        #expect(try Self.fileProblem(#"{"tables": {"t": true}}"#, dir)
            == #"\#(f), table 't': the settings must be a JSON object, e.g. {"softDelete": false}"#)
        #expect(try Self.fileProblem(#"{"tables": {"t": {"softdelete": false}}}"#, dir)
            == #"\#(f), table 't': unknown key "softdelete"; the keys are softDelete, idType, dynamicSchema, columns"#)
        #expect(try Self.fileProblem(#"{"tables": {"t": {"softDelete": "no"}}}"#, dir)
            == #"\#(f), table 't', key "softDelete": must be true or false, not "no""#)
        #expect(try Self.fileProblem(#"{"tables": {"t": {"idType": "int"}}}"#, dir)
            == #"\#(f), table 't', key "idType": must be "string" or "autoIncrement", not "int""#)
        #expect(try Self.fileProblem(#"{"tables": {"t": {"columns": {"due": "date"}}}}"#, dir)
            == #"\#(f), table 't', key "columns": column 'due' must be "string", "number" or "boolean", not "date""#)
        #expect(try Self.fileProblem(#"{"tables": {"t": {"columns": {"updatedAt": "string"}}}}"#, dir)
            == #"\#(f), table 't', key "columns": "updatedAt" is reserved: it is a system property"#)
        #expect(try Self.fileProblem(#"{"tables": {"t": {"columns": ["a"]}}}"#, dir)
            == #"\#(f), table 't', key "columns": must be an object of column names and types, e.g. {"text": "string"}"#)
        try LocalFileSystem().writeFile(dir.sub("tables.json"), Array(#"{"tables": {"t": {"softDelete": true}}}"#.utf8), sync: false)
        #expect(Self.problem(["--tables", "t:hardDelete", "--table-config", dir.sub("tables.json")])
            == "table 't' has two settings for softDelete: one in --tables, another in the table config file '\(dir.sub("tables.json"))'; keep one")
    }

    // MARK: Restart

    static func service(_ dir: TempDirectory, _ options: [String: TableOptions], source: String? = nil) throws -> TableService {
        var config = ServiceConfiguration()
        config.tables = options.keys.sorted()
        config.tableOptions = options
        config.tableOptionsSource = source
        let storage = try TableStorage(directory: dir.sub("data"))
        do { return try TableService(configuration: config, storage: storage) } catch {
            storage.close()
            throw error
        }
    }

    @Test func settingsLiveInTheLogAndSurviveARestart() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let first = try Self.service(dir, ["counters": TableOptions(softDelete: false, idType: .autoIncrement)])
        first.storage.close()
        // Restarted without settings: the log's are kept, never the defaults.
        let again = try Self.service(dir, ["counters": TableOptions()])
        defer { again.storage.close() }
        let schema = try again.storage.schema("counters")
        #expect(schema?.softDelete == false && schema?.idType == .autoIncrement)
    }

    @Test func aStartThatWouldChangeATablesLogIsRefused() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        try Self.service(dir, ["counters": TableOptions(softDelete: false, idType: .autoIncrement, columns: ["n": .number])])
            .storage.close()
        let data = dir.sub("data")
        let cases: [(TableOptions, String)] = [
            (TableOptions(softDelete: true), "table 'counters': the table config file 'x.json' sets softDelete true, but its log "
                + "(\(data)/counters.log) was created with softDelete false; changing it would reinterpret the table's rows. "
                + "Remove the setting to keep the table as it is, or give the new setting to a table of another name"),
            (TableOptions(idType: .string), "table 'counters': the table config file 'x.json' sets idType \"string\", but its log "
                + "(\(data)/counters.log) holds \"autoIncrement\" ids, which cannot change. Remove the setting to keep the table "
                + "as it is, or give the new setting to a table of another name"),
            (TableOptions(columns: ["n": .string]), "table 'counters': the table config file 'x.json' declares column 'n' as "
                + "string, but its log (\(data)/counters.log) holds it as number. Declare it as number, or leave it out"),
        ]
        for (options, message) in cases {
            let error = #expect(throws: TableSetup.Mismatch.self) {
                try Self.service(dir, ["counters": options], source: "the table config file 'x.json'")
            }
            #expect(error.map { "\($0)" } == message)
        }
        // A new declared column is added; the table keeps its rows and settings.
        let widened = try Self.service(dir, ["counters": TableOptions(columns: ["label": .string])])
        defer { widened.storage.close() }
        #expect(try widened.storage.schema("counters")?.columns == ["n": .number, "label": .string])
    }

    /// A log written before this change (its header has no `idType`) opens as a string-id table, and
    /// a new string-id table's header is still byte for byte that format.
    @Test func logsWithoutTheNewHeaderMembersStillOpen() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let data = dir.sub("data")
        try LocalFileSystem().createDirectory(data)
        let header = #"{"format":"todo-table-log","formatVersion":1,"lastUpdatedAt":5,"lastVersion":7,"softDelete":false,"table":"Old"}"#
        let row = #"{"columns":{"k":"number"},"put":[{"createdAt":5,"deleted":false,"id":"a","updatedAt":5,"values":{"k":1},"version":7}],"stamp":{"updatedAt":5,"version":7}}"#
        try LocalFileSystem().writeFile(data + "/old.log", TableLogFraming.line(Array(header.utf8)) + TableLogFraming.line(Array(row.utf8)), sync: true)
        let storage = try TableStorage(directory: data)
        defer { storage.close() }
        #expect(try storage.schema("old") == TableSchema(name: "Old", softDelete: false, idType: .string, columns: ["k": .number]))
        try storage.createTable("fresh", softDelete: true)
        let bytes = try LocalFileSystem().readFile(data + "/fresh.log") ?? []
        let firstLine = String(decoding: bytes.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        #expect(firstLine.hasSuffix(#"{"format":"todo-table-log","formatVersion":1,"lastUpdatedAt":0,"lastVersion":7,"softDelete":true,"table":"fresh"}"#),
                "\(firstLine)")
    }

    /// The built binary: a bad file and a start that would change a table exit 2 with the message.
    @Test func theBinaryExits2OnABadConfig() throws {
        #expect(LocalFileSystem().fileExists(ServerProcessTests.binary), "build todo-server first (swift build)")
        let dir = TempDirectory()
        defer { dir.remove() }
        let config = dir.sub("tables.json")
        try LocalFileSystem().writeFile(config, Array(#"{"tables": {"counters": {"idType": "int"}}}"#.utf8), sync: false)
        let bad = try Self.runServer(["--data", dir.sub("data"), "--table-config", config], dir)
        #expect(bad.code == 2)
        #expect(bad.err == "error: the table config file '\(config)', table 'counters', key \"idType\": must be \"string\" or "
            + "\"autoIncrement\", not \"int\"\nhint: see 'todo-server --help'\n")
        try Self.service(dir, ["counters": TableOptions(idType: .autoIncrement)]).storage.close()
        let changed = try Self.runServer(["--data", dir.sub("data"), "--tables", "counters:string"], dir)
        #expect(changed.code == 2)
        #expect(changed.err.hasPrefix("error: table 'counters': --tables sets idType \"string\", but its log"), "\(changed.err)")
    }

    /// Runs `todo-server` to its exit; its stderr and exit code.
    static func runServer(_ args: [String], _ dir: TempDirectory) throws -> (code: Int32, err: String) {
        let errPath = dir.sub("server.err")
        var fileActions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&fileActions)
        posix_spawn_file_actions_addopen(&fileActions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&fileActions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let all = [ServerProcessTests.binary, "--port", "0"] + args
        var argv: [UnsafeMutablePointer<CChar>?] = all.map { strdup($0) } + [nil]
        defer { for a in argv { free(a) }; posix_spawn_file_actions_destroy(&fileActions) }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, ServerProcessTests.binary, &fileActions, nil, &argv, environ)
        guard rc == 0 else { throw FileSystemError(operation: "spawn", path: ServerProcessTests.binary, code: rc, reason: errnoText(rc)) }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        let err = String(decoding: (try LocalFileSystem().readFile(errPath)) ?? [], as: UTF8.self)
        return ((status >> 8) & 0xFF, err)
    }
}
