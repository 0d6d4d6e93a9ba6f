import Testing
import TodoTestSupport
@testable import PostgresClient

/// The pool: bounded, and it replaces sessions the server ended (terminate, restart, failover).
@Suite struct PoolTests {
    /// pg_terminate_backend of an idle pooled connection: the next query works, on a new backend.
    @Test func aTerminatedPooledConnectionIsReplaced() throws {
        let cluster = try TestCluster.shared()
        let pool = PostgresPool(cluster.tcpConfig(), size: 1)
        defer { pool.close() }
        let first = try pool.query("SELECT pg_backend_pid()")[0].decode(0, as: Int32.self)
        let admin = try PostgresConnection.connect(cluster.socketConfig)
        defer { admin.close() }
        try terminateBackend(first, using: admin)
        let second = try pool.query("SELECT pg_backend_pid()")[0].decode(0, as: Int32.self)
        #expect(second != first)
        #expect(pool.connectionsOpened == 2)
        #expect(pool.openConnections == 1)
    }

    /// A transaction whose session is ended before COMMIT (as in a failover) runs again on a new
    /// connection; the first attempt's insert was rolled back by the server, so there is one row.
    @Test func aTransactionCutBeforeCommitRunsAgainOnANewConnection() throws {
        let cluster = try TestCluster.shared()
        let pool = PostgresPool(cluster.socketConfig, size: 2)
        defer { pool.close() }
        let admin = try PostgresConnection.connect(cluster.socketConfig)
        defer { admin.close() }
        let table = uniqueName("failover")
        try pool.execute("CREATE TABLE \(table) (id int8 PRIMARY KEY)")
        var attempts = 0
        try pool.transaction { c in
            attempts += 1
            try c.execute("INSERT INTO \(table) VALUES (1)")
            if attempts == 1 { try terminateBackend(c.processID, using: admin) }
            _ = try c.query("SELECT 1")
        }
        #expect(attempts == 2)
        #expect(try pool.query("SELECT count(*) FROM \(table)")[0].decode(0, as: Int.self) == 1)
    }

    /// Eight threads share two connections: never more than two checked out, none opened again.
    @Test func neverMoreThanSizeConnections() throws {
        let cluster = try TestCluster.shared()
        let pool = PostgresPool(cluster.socketConfig, size: 2, checkoutTimeout: 60)
        defer { pool.close() }
        let inUse = Counter(), most = Counter(), done = Counter()
        RealThreads.run(8) { _ in
            for _ in 0..<5 {
                do {
                    try pool.withConnection { c in
                        most.raise(to: inUse.increment())
                        _ = try c.query("SELECT pg_sleep(0.01)")
                        inUse.add(-1)
                    }
                    done.add(1)
                } catch {
                    Issue.record("\(error)")
                }
            }
        }
        #expect(done.current == 40)
        #expect(most.current == 2)
        #expect(pool.connectionsOpened == 2)
    }

    @Test func aCheckoutWaitsThenGivesUpWhenAllAreBusy() throws {
        let pool = PostgresPool(try TestCluster.shared().socketConfig, size: 1, checkoutTimeout: 0.2)
        defer { pool.close() }
        let held = try pool.checkout()
        guard case .poolUnavailable(let reason)? = postgresError({ _ = try pool.checkout() }) else {
            Issue.record("expected .poolUnavailable")
            return
        }
        #expect(reason.contains("all 1 connections stayed busy"))
        pool.checkin(held)
        #expect(try pool.query("SELECT 1")[0].decode(0, as: Int.self) == 1)
    }

    /// The server stops (fast shutdown: every session gets 57P01): the pool reports
    /// `.cannotConnect` with the reason; once it is back, the pool works again without help.
    @Test func theServerRestartsAndThePoolRecovers() throws {
        let cluster = try TestCluster.make("restart").get()
        let pool = PostgresPool(cluster.socketConfig, size: 2)
        defer { pool.close() }
        let a = try pool.checkout(), b = try pool.checkout()
        pool.checkin(a)
        pool.checkin(b)
        #expect(pool.connectionsOpened == 2)

        try cluster.stop().get()
        guard case .cannotConnect(let reason)? = postgresError({ _ = try pool.query("SELECT 1") }) else {
            Issue.record("expected .cannotConnect while the server is down")
            return
        }
        #expect(reason.contains(cluster.socketFolder) && reason.contains("Is the server running"))
        #expect(pool.openConnections == 0)

        try cluster.start().get()
        #expect(try pool.query("SELECT 1")[0].decode(0, as: Int.self) == 1)
        #expect(pool.connectionsOpened == 3)
        try cluster.stop().get()
    }
}
