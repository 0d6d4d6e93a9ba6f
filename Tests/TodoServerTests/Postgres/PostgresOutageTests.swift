#if canImport(Glibc)
import Glibc
#endif
import PostgresClient
import Synchronization
import Testing
import TableProtocol
import TodoBasics
import TodoModel
import TodoTestSupport
@testable import TodoServer

/// Issue 18 item 5: PostgreSQL stopped, restarted or cutting sessions under a running node:
/// every request gets an answer (a 503 that says so while the database is away), the node keeps
/// serving, and once PostgreSQL is back the same node answers again, without a restart.
@Suite struct PostgresOutageTests {
    static let unavailable = "The storage is unavailable: storage: PostgreSQL ("

    @Test func aStoppedDatabaseIs503AndTheNodeRecovers() throws {
        let cluster = try TestCluster.make("outage").orFail()
        defer { _ = cluster.stop() }
        let h = try TableServerHarness(backend: .postgres, joining: try TestDatabase(on: cluster))
        try h.insert(#"{"id":"a","text":"kept"}"#)
        try cluster.stop().orFail()
        for (method, target, body) in [("GET", "/tables/todoitem/a", nil), ("GET", "/tables/todoitem", nil),
                                       ("POST", "/tables/todoitem", #"{"id":"b"}"#), ("PATCH", "/tables/todoitem/a", #"{"text":"x"}"#)] {
            let reply = try h.send(method, target, body: body, allowing503: true)
            let message = reply.object["error"]?.stringValue ?? ""
            #expect(reply.status == 503 && message.hasPrefix(Self.unavailable), "\(method) \(target): \(reply)")
            #expect(message.contains("cannot connect to PostgreSQL"), "\(message)")
        }
        try cluster.start().orFail()
        let back = try h.send("GET", "/tables/todoitem/a")
        #expect(back.status == 200 && back.object["text"] == "kept")
        #expect(try h.send("POST", "/tables/todoitem", body: #"{"id":"b"}"#).status == 201)
    }

    /// Clients writing and reading all the time through a node process while PostgreSQL restarts
    /// (fast: 57P01 to every session, as in a Patroni switchover), while an administrator
    /// terminates the node's sessions, and while PostgreSQL is stopped. Every request is answered
    /// before its socket's deadline, 200/201 or a 503 saying why; every acknowledged insert is
    /// kept; the node is alive and serving at the end.
    @Test func restartsTerminatedSessionsAndAStopUnderLoad() throws {
        let cluster = try TestCluster.make("outage-load").orFail()
        defer { _ = cluster.stop() }
        let database = try TestDatabase(on: cluster)
        let dir = TempDirectory("todo-server-pg-outage")
        defer { dir.remove() }
        let node = try ServerProcessTests.start(dir.sub("data"), dir, ["--store", PostgresServerProcessTests.url(database)])
        defer { kill(node.pid, SIGTERM); var s: Int32 = 0; waitpid(node.pid, &s, 0) }
        let load = OutageLoad(port: node.port)
        let phases = Mutex<[String]>([])
        RealThreads.run(7) { c in
            guard c == 6 else { return load.run(client: c) }
            func step(_ name: String, _ result: () -> Bool) {
                let before = load.answered(.ok)
                if !result() { phases.withLock { $0.append("\(name) failed") } }
                // Progress: the load goes on after each step (bounded wait).
                if !load.await({ $0.answered(.ok) >= before + 20 }) { phases.withLock { $0.append("no 2xx after \(name)") } }
            }
            step("start") { true }
            step("pg_ctl restart -m fast") { (try? cluster.restart().get()) != nil }
            step("pg_terminate_backend") { Self.terminateSessions(of: database) > 0 }
            step("stop, then start") {
                guard (try? cluster.stop().get()) != nil else { return false }
                let during = load.answered(.unavailable)
                let refused = load.await { $0.answered(.unavailable) >= during + 10 }
                return refused && (try? cluster.start().get()) != nil
            }
            load.finish()
        }
        #expect(phases.withLock { $0 } == [])
        #expect(load.failures == [], "every request answered in time, with 200, 201 or 503")
        #expect(load.answered(.unavailable) >= 10)
        for message in load.messages {
            #expect(message.hasPrefix(Self.unavailable), "\(message)")
        }
        var status: Int32 = 0
        #expect(waitpid(node.pid, &status, WNOHANG) == 0, "the node is still running")
        let rows = try PostgresServerProcessTests.send(node.port, "GET", "/tables/todoitem?$top=1000&$select=id")
        let stored = Set(((try? JSONValue.parse(rows.body))?.arrayValue ?? []).compactMap { $0["id"]?.stringValue })
        #expect(rows.status == 200 && load.inserted.isSubset(of: stored), "lost: \(load.inserted.subtracting(stored).prefix(5))")
    }

    /// A node started while PostgreSQL is down does not start: it says why and what to check,
    /// exit 1 (a supervisor starts it again); started once PostgreSQL is up, it serves.
    @Test func aNodeStartedWhileTheDatabaseIsDownRefusesToStart() throws {
        let cluster = try TestCluster.make("outage-start").orFail()
        defer { _ = cluster.stop() }
        let database = try TestDatabase(on: cluster)
        let dir = TempDirectory("todo-server-pg-down")
        defer { dir.remove() }
        try cluster.stop().orFail()
        let url = PostgresServerProcessTests.url(database)
        let refused = PostgresMigrationTests.run("todo-server", "--data data --port 0 --store '\(url)'", in: dir.path)
        #expect(refused.code == 1 && refused.out == "")
        #expect(refused.err.hasPrefix("error: cannot use the PostgreSQL store \(database.config.endpoint): storage: PostgreSQL "
            + "(cannot connect to PostgreSQL: "), "\(refused.err)")
        #expect(refused.err.hasSuffix("\nhint: check that the server runs, the user, the database and the password (PGPASSWORD "
            + "or a password file)\n"), "\(refused.err)")
        try cluster.start().orFail()
        let node = try ServerProcessTests.start(dir.sub("data"), dir, ["--store", url])
        defer { kill(node.pid, SIGTERM); var s: Int32 = 0; waitpid(node.pid, &s, 0) }
        #expect(try PostgresServerProcessTests.send(node.port, "GET", "/tables/todoitem").status == 200)
    }

    /// Ends every session on the test database but this one; how many it ended.
    static func terminateSessions(of database: TestDatabase) -> Int {
        guard let admin = try? PostgresConnection.connect(database.cluster.socketConfig) else { return 0 }
        defer { admin.close() }
        let ended = try? admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
                                     [.text(database.name)])
        return ended?.count ?? 0
    }
}
