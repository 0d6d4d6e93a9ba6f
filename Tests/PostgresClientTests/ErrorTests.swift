#if canImport(Glibc)
import Glibc
#endif
import Testing
import TodoTestSupport
@testable import PostgresClient

/// Server errors become typed errors with their fields; the ones that end a session say so and
/// leave the connection broken, the others leave it usable.
@Suite struct ErrorTests {
    @Test func aUniqueViolationNamesItsConstraint() throws {
        let connection = try PostgresConnection.connect(try TestCluster.shared().socketConfig)
        defer { connection.close() }
        let table = uniqueName("uniq")
        try connection.execute("CREATE TABLE \(table) (id int8 PRIMARY KEY, name text CONSTRAINT \(table)_name_key UNIQUE)")
        try connection.execute("INSERT INTO \(table) VALUES ($1, $2)", [1, "a"])
        let error = postgresError { try connection.execute("INSERT INTO \(table) VALUES ($1, $2)", [2, "a"]) }
        #expect(error?.isUniqueViolation == true)
        #expect(error?.constraint == "\(table)_name_key")
        #expect(error?.serverError?.table == table)
        #expect(error?.serverError?.severity == "ERROR")
        #expect(error?.serverError?.detail == "Key (name)=(a) already exists.")
        #expect(error?.description.contains("23505") == true)
        #expect(error?.closesConnection == false)
        // The connection goes on.
        #expect(try connection.execute("INSERT INTO \(table) VALUES ($1, $2)", [2, "b"]) == 1)
    }

    @Test func otherConstraintViolationsNameTheirConstraints() throws {
        let connection = try PostgresConnection.connect(try TestCluster.shared().socketConfig)
        defer { connection.close() }
        let parent = uniqueName("parent"), child = uniqueName("child")
        try connection.execute("CREATE TABLE \(parent) (id int8 PRIMARY KEY)")
        try connection.execute("""
            CREATE TABLE \(child) (id int8 PRIMARY KEY, parent int8 CONSTRAINT \(child)_fk REFERENCES \(parent),
                                   n int8 CONSTRAINT \(child)_positive CHECK (n > 0))
            """)
        let foreign = postgresError { try connection.execute("INSERT INTO \(child) VALUES (1, 9, 1)") }
        #expect(foreign?.sqlState == SQLState.foreignKeyViolation && foreign?.constraint == "\(child)_fk")
        let check = postgresError { try connection.execute("INSERT INTO \(child) VALUES (1, NULL, $1)", [-1]) }
        #expect(check?.sqlState == SQLState.checkViolation && check?.constraint == "\(child)_positive")
    }

    @Test func aSyntaxErrorCarriesItsPosition() throws {
        let connection = try PostgresConnection.connect(try TestCluster.shared().socketConfig)
        defer { connection.close() }
        let error = postgresError { _ = try connection.query("SELECT 1 FROM WHERE") }
        #expect(error?.sqlState == "42601")
        #expect(error?.serverError?.position == 15)
    }

    /// pg_terminate_backend while the connection sits idle: the next query reports 57P01 as
    /// `.adminShutdown` (the server's FATAL message is read even though the socket closed).
    @Test func aTerminatedIdleSessionIsAdminShutdown() throws {
        let cluster = try TestCluster.shared()
        let admin = try PostgresConnection.connect(cluster.socketConfig)
        defer { admin.close() }
        let victim = try PostgresConnection.connect(cluster.tcpConfig())
        try terminateBackend(victim.processID, using: admin)
        let error = postgresError { _ = try victim.query("SELECT 1") }
        guard case .adminShutdown(let serverError)? = error else {
            Issue.record("expected .adminShutdown, got \(String(describing: error))")
            return
        }
        #expect(serverError.sqlState == SQLState.adminShutdown)
        #expect(victim.isBroken)
        #expect(error?.description.contains("connect again") == true)
        guard case .connectionLost? = postgresError({ _ = try victim.query("SELECT 1") }) else {
            Issue.record("a broken connection must refuse further queries")
            return
        }
    }

    /// The same in the middle of a running query, as when Patroni demotes the primary.
    @Test func aSessionTerminatedMidQueryIsAdminShutdown() throws {
        let cluster = try TestCluster.shared()
        let admin = try PostgresConnection.connect(cluster.socketConfig)
        defer { admin.close() }
        let victim = try PostgresConnection.connect(cluster.socketConfig)
        let pid = Int64(victim.processID)
        let outcome = Counter()
        RealThreads.run(2) { index in
            if index == 0 {
                if case .adminShutdown? = postgresError({ _ = try victim.query("SELECT pg_sleep(60)") }) { outcome.add(1) }
            } else {
                do {
                    try waitUntil("the victim is sleeping") {
                        try admin.query("SELECT count(*) FROM pg_stat_activity WHERE pid = $1 AND wait_event = 'PgSleep'",
                                        [.int(pid)])[0].decode(0, as: Int.self) == 1
                    }
                    try terminateBackend(Int32(pid), using: admin)
                } catch {
                    Issue.record("\(error)")
                }
            }
        }
        #expect(outcome.current == 1)
        #expect(victim.isBroken)
    }

    /// The query timeout cancels the query on the server (it does not run on) and closes the connection.
    @Test func aQueryTimeoutCancelsTheQuery() throws {
        let cluster = try TestCluster.shared()
        var config = cluster.socketConfig
        config.queryTimeout = 0.5
        let slow = try PostgresConnection.connect(config)
        let pid = Int64(slow.processID)
        let error = postgresError { _ = try slow.query("SELECT pg_sleep(60)") }
        guard case .timedOut(let reason)? = error else {
            Issue.record("expected .timedOut, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("0.5 s") && reason.contains("pg_sleep"))
        #expect(slow.isBroken)
        let admin = try PostgresConnection.connect(cluster.socketConfig)
        defer { admin.close() }
        try waitUntil("the cancelled backend has stopped sleeping") {
            try admin.query("SELECT count(*) FROM pg_stat_activity WHERE pid = $1 AND wait_event = 'PgSleep'",
                            [.int(pid)])[0].decode(0, as: Int.self) == 0
        }
    }
}
