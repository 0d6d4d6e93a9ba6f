#if canImport(Glibc)
import Glibc
#endif
import Testing
import TableProtocol
import TodoBasics
import TodoModel
import TodoTestSupport
@testable import TodoServer

/// `todo-server --store postgres…` (issue 18): the built binary on a throwaway database.
@Suite struct PostgresServerProcessTests {
    /// The store URL of a test database over the cluster's unix socket.
    static func url(_ database: TestDatabase) -> String {
        "postgresql:///\(database.name)?host=\(database.cluster.socketFolder)&port=\(database.cluster.port)&user=postgres"
    }

    /// One request on a new connection. `headers`: more header lines ("If-Match: \"…\""). `deadline`:
    /// how long the socket waits for the answer before the call throws (a hang is an error).
    static func send(_ port: Int, _ method: String, _ target: String, _ body: String = "", headers: [String] = [],
                     deadline: Duration = .seconds(10)) throws -> HTTPResponse {
        let client = try RawHTTPClient(port: port, receiveTimeout: deadline)
        defer { client.close() }
        let bytes = Array(body.utf8)
        let extra = headers.map { $0 + "\r\n" }.joined()
        try client.send(Array("\(method) \(target) HTTP/1.1\r\nHost: x\r\nZUMO-API-VERSION: 2.0.0\r\n\(extra)Content-Length: \(bytes.count)\r\nConnection: close\r\n\r\n".utf8) + bytes)
        return try client.readResponse(method: method)
    }

    /// Two processes on one database serve the same rows, and a row outlives both.
    @Test func twoNodesShareTheTablesAndARestartKeepsThem() throws {
        let database = try TestDatabase()
        let dir = TempDirectory("todo-server-pg")
        defer { dir.remove() }
        let store = ["--store", Self.url(database)]
        let one = try ServerProcessTests.start(dir.sub("data1"), dir, store)
        let two = try ServerProcessTests.start(dir.sub("data2"), dir, store)
        let inserted = try Self.send(one.port, "POST", "/tables/todoitem", #"{"id":"x","text":"hello"}"#)
        #expect(inserted.status == 201)
        let version = (try? JSONValue.parse(inserted.body))?["version"]?.stringValue
        let read = try Self.send(two.port, "GET", "/tables/todoitem/x")
        #expect(read.status == 200 && (try? JSONValue.parse(read.body))?["text"] == "hello")
        for pid in [one.pid, two.pid] { kill(pid, SIGTERM); var s: Int32 = 0; waitpid(pid, &s, 0) }
        let again = try ServerProcessTests.start(dir.sub("data3"), dir, store)
        defer { kill(again.pid, SIGTERM); var s: Int32 = 0; waitpid(again.pid, &s, 0) }
        let after = try Self.send(again.port, "GET", "/tables/todoitem/x")
        #expect(after.status == 200 && (try? JSONValue.parse(after.body))?["version"]?.stringValue == version)
    }

    @Test func storeOptions() throws {
        let withPassword = ServerOptionsTests.problem(["--store", "postgres://app:secret@db.example/todo"])
        #expect(withPassword == "--store: PostgreSQL configuration: the connection string holds a password; remove it and set PGPASSWORD or a password "
            + "file (passfile=PATH) instead: command lines are visible to everyone")
        #expect(ServerOptionsTests.problem(["--store", "mysql://db/todo"])?.hasPrefix("--store: PostgreSQL configuration: a connection string starts with postgres://") == true)
        let parsed = try ServerOptionsTests.parse(["--store", "postgres://app@db.example:6432/todo"], ["PGPASSWORD": "pw"]).get()
        #expect(parsed.postgres?.endpoint == .tcp(host: "db.example", port: 6432) && parsed.postgres?.database == "todo"
            && parsed.postgres?.password == "pw")
    }
}
