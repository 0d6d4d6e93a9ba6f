#if canImport(Glibc)
import Glibc
#endif
import Testing
import TableProtocol
import TodoBasics
import TodoModel
import TodoTestSupport
@testable import TodoServer

/// `todo-server migrate --from DATA --to postgres://…` (issue 18 item 7).
@Suite(.serialized) struct PostgresMigrationTests {
    static let build = Fixtures.root.parentPath.appendingPath(".build/debug")

    /// Runs a built binary (`todo` or `todo-server`) in `dir` with shell words; its stdout, stderr, exit code.
    static func run(_ binary: String, _ words: String, in dir: String) -> CLIResult {
        let code = TempDirectory.shell("cd '\(dir)' && unset TODO_DIR && '\(build)/\(binary)' \(words) > .out 2> .err")
        let read = { (name: String) in
            (try? LocalFileSystem().readFile(dir.appendingPath(name))).flatMap { $0 }.map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
        return CLIResult(out: read(".out"), err: read(".err"), code: code)
    }

    static func stop(_ pid: pid_t) {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    /// Every row of a table as a G2 client reads it, deleted ones too, in id order: the bytes compared.
    static func rows(_ port: Int, _ table: String) throws -> String {
        let reply = try PostgresServerProcessTests.send(port, "GET", "/tables/\(table)?$orderby=id&$top=1000&__includeDeleted=true")
        return String(decoding: reply.body, as: UTF8.self)
    }

    /// A replica cloned from the embedded server, with an edit not yet pushed, goes on syncing
    /// against a PostgreSQL node at the same URL after the migration: the rows, versions, times
    /// and deleted flags are the same bytes; the pull downloads nothing again; the push's If-Match
    /// (an ETag from the embedded server) holds; new changes come down; counters go on.
    @Test func theRowsAndTheReplicasTokensSurviveAMigration() throws {
        let database = try TestDatabase()
        let dir = TempDirectory("todo-migrate")
        defer { dir.remove() }
        let tables = ["--tables", "todoitem,plain:hardDelete,counters:autoIncrement"]
        let embedded = try ServerProcessTests.start(dir.sub("data"), dir, tables)
        var running = [embedded.pid]
        defer { for pid in running { Self.stop(pid) } }
        let send = { (method: String, target: String, body: String) throws -> HTTPResponse in
            try PostgresServerProcessTests.send(embedded.port, method, target, body)
        }
        for id in ["x", "y", "z", "gone"] {
            #expect(try send("POST", "/tables/todoitem", #"{"id":"\#(id)","text":"\#(id) 1","priority":2}"#).status == 201)
        }
        #expect(try send("PATCH", "/tables/todoitem/y", #"{"text":"y 2"}"#).status == 200)
        #expect(try send("DELETE", "/tables/todoitem/gone", "").status == 200)
        #expect(try send("POST", "/tables/plain", #"{"id":"p","text":"kept"}"#).status == 201)
        #expect(try send("POST", "/tables/plain", #"{"id":"q","text":"removed"}"#).status == 201)
        #expect(try send("DELETE", "/tables/plain/q", "").status == 200)
        for _ in 0..<2 { #expect(try send("POST", "/tables/counters", #"{"text":"n"}"#).status == 201) }
        let url = "http://127.0.0.1:\(embedded.port)"
        #expect(Self.run("todo", "clone \(url) A", in: dir.path).code == 0)
        let replica = dir.sub("A")
        #expect(Self.run("todo", "edit x --text 'x from A'", in: replica).code == 0)
        let before = try ["todoitem", "plain", "counters"].map { try Self.rows(embedded.port, $0) }
        Self.stop(embedded.pid)
        running = []

        let migrated = Self.run("todo-server", "migrate --from data --to '\(PostgresServerProcessTests.url(database))'", in: dir.path)
        #expect(migrated.code == 0, "\(migrated)")
        #expect(migrated.out == """
            counters: 2 rows (0 deleted) copied and read back
            plain: 1 row (0 deleted) copied and read back
            todoitem: 4 rows (1 deleted) copied and read back
            copied 3 tables, 7 rows, from 'data' to PostgreSQL database '\(database.name)' at \(database.config.endpoint)

            """)

        let node = try ServerProcessTests.start(dir.sub("node-data"), dir,
                                                tables + ["--store", PostgresServerProcessTests.url(database), "--port", "\(embedded.port)"])
        running = [node.pid]
        #expect(node.port == embedded.port)
        #expect(try ["todoitem", "plain", "counters"].map { try Self.rows(node.port, $0) } == before)
        let counter = try PostgresServerProcessTests.send(node.port, "POST", "/tables/counters", #"{"text":"n"}"#)
        #expect(counter.status == 201 && (try? JSONValue.parse(counter.body))?["id"] == .number(3))

        let pull = Self.run("todo", "pull", in: replica)
        #expect(pull.code == 0 && pull.out.hasPrefix("pulled todoitem query 'default': 0 rows,"), "\(pull)")
        let push = Self.run("todo", "push", in: replica)
        #expect(push.code == 0, "\(push)")
        let x = try PostgresServerProcessTests.send(node.port, "GET", "/tables/todoitem/x")
        #expect((try? JSONValue.parse(x.body))?["text"] == "x from A")
        #expect(try PostgresServerProcessTests.send(node.port, "PATCH", "/tables/todoitem/z", #"{"text":"z from another replica"}"#).status == 200)
        let again = Self.run("todo", "pull", in: replica)
        #expect(again.code == 0 && again.out.hasPrefix("pulled todoitem query 'default': 2 rows,"), "\(again)")
        #expect(Self.run("todo", "show z", in: replica).out.contains("z from another replica"))
        #expect(Self.run("todo", "status --short", in: replica).out.contains("C ") == false)
        #expect(Self.run("todo", "doctor --remote", in: replica).code == 0)
    }

    /// An embedded store in `directory` with these rows in `todoitem`, each stored as given; open.
    static func embedded(_ directory: String, _ rows: [StoredRow]) throws -> TableStorage {
        let store = try TableStorage(directory: directory)
        try store.write("todoitem", creatingWithSoftDelete: true) { w in
            for row in rows { w.put(row) }
        }
        return store
    }

    /// A target that already holds rows of a table is refused whole, with what to do; a data
    /// directory that does not exist too; neither copies anything.
    @Test func aTargetWithRowsIsRefusedAndNothingIsCopied() throws {
        let database = try TestDatabase()
        let dir = TempDirectory("todo-migrate-refused")
        defer { dir.remove() }
        try Self.embedded(dir.sub("data"), [StoredRow(id: "a", columns: [:], createdAt: 1, updatedAt: 1, version: 1)]).close()
        let url = PostgresServerProcessTests.url(database)
        let node = try TableServerHarness(backend: .postgres, joining: database)
        try node.insert(#"{"id":"other","text":"already there"}"#)

        let refused = Self.run("todo-server", "migrate --from data --to '\(url)'", in: dir.path)
        #expect(refused.code == 1 && refused.out == "")
        #expect(refused.err == "error: todo-server migrate: PostgreSQL already holds 1 row of table 'todoitem' (database "
            + "'\(database.name)' at \(database.config.endpoint)), so nothing was copied: migrate into a database without rows "
            + "of the data directory's tables (a new one), or delete those rows first if they are not needed\n")
        #expect(try node.send("GET", "/tables/todoitem?$select=id").array.compactMap { $0["id"]?.stringValue } == ["other"])

        let missing = Self.run("todo-server", "migrate --from nowhere --to '\(url)'", in: dir.path)
        #expect(missing.code == 1 && missing.err == "error: todo-server migrate: there is no data directory 'nowhere'; "
            + "give the --data folder of the embedded server\n")
    }

    @Test func usage() throws {
        let dir = TempDirectory("todo-migrate-usage")
        defer { dir.remove() }
        let help = Self.run("todo-server", "migrate --help", in: dir.path)
        #expect(help.code == 0 && help.out == MigrateCommand.usage + "\n")
        let password = Self.run("todo-server", "migrate --from data --to postgres://app:secret@db.example/todo", in: dir.path)
        #expect(password.code == 2 && password.err == "error: todo-server migrate: --to: PostgreSQL configuration: the connection "
            + "string holds a password; remove it and set PGPASSWORD or a password file (passfile=PATH) instead: command lines "
            + "are visible to everyone\nhint: see 'todo-server migrate --help'\n")
        let half = Self.run("todo-server", "migrate --from data", in: dir.path)
        #expect(half.code == 2 && half.err.hasPrefix("error: todo-server migrate: say where from and where to: --from DIR --to postgres://…\n"))
        #expect(Self.run("todo-server", "--help", in: dir.path).out.contains("todo-server migrate --from DIR --to postgres://"))
    }

    /// In batches smaller than the table, with rows that share an updatedAt across a batch's
    /// end: every row arrives once, as it was.
    @Test func batchesCopyEveryRowOnce() throws {
        let database = try TestDatabase()
        let dir = TempDirectory("todo-migrate-batches")
        defer { dir.remove() }
        let stamps: [Int64] = [100, 100, 100, 200, 200, 300, 300]
        let rows = stamps.enumerated().map { n, t in
            StoredRow(id: "r\(n)", columns: ["text": .string("t\(n)")], createdAt: t - 50, updatedAt: t, version: UInt64(n + 1), deleted: n == 4)
        }
        let source = try Self.embedded(dir.sub("data"), rows)
        let target = try PostgresTableStore(config: database.config, connections: 1)
        defer { target.close() }
        let copied = try PostgresMigration(source: source, target: target, batchSize: 2).run()
        source.close()
        #expect(copied == [.init(table: "todoitem", rows: 7, deleted: 1)])
        for row in rows { #expect(try target.readRow("todoitem", id: row.id)?.row == row) }
    }
}
