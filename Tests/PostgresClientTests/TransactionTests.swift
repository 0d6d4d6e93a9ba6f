import Testing
import TodoTestSupport
@testable import PostgresClient

private struct BodyFailed: Error {}

/// Transactions commit, roll back, and run again after a serialization failure or a deadlock.
@Suite struct TransactionTests {
    @Test func commitsAndRollsBack() throws {
        let connection = try PostgresConnection.connect(try TestCluster.shared().socketConfig)
        defer { connection.close() }
        let table = uniqueName("tx")
        try connection.execute("CREATE TABLE \(table) (id int8 PRIMARY KEY)")
        let inserted = try connection.transaction { c in try c.execute("INSERT INTO \(table) VALUES ($1), ($2)", [1, 2]) }
        #expect(inserted == 2)
        #expect(throws: BodyFailed.self) {
            try connection.transaction { c in
                try c.execute("INSERT INTO \(table) VALUES ($1)", [3])
                throw BodyFailed()
            }
        }
        #expect(try connection.query("SELECT count(*) FROM \(table)")[0].decode(0, as: Int.self) == 2)
        #expect(connection.transactionStatus == UInt8(ascii: "I"))
    }

    /// Two SERIALIZABLE read-modify-writes of one counter, made to overlap: both read 0, one
    /// commits 1, the other fails with 40001 and runs again, reading 1 and writing 2. Without the
    /// retry it would throw; with a lost update the counter would end at 1.
    @Test func aSerializationFailureIsRetriedAndSucceeds() throws {
        let cluster = try TestCluster.shared()
        let setup = try PostgresConnection.connect(cluster.socketConfig)
        defer { setup.close() }
        let table = uniqueName("counter")
        try setup.execute("CREATE TABLE \(table) (id int8 PRIMARY KEY, n int8 NOT NULL)")
        try setup.execute("INSERT INTO \(table) VALUES (1, 0)")

        let bothRead = Rendezvous(2), attempts = Counter(), failures = Counter()
        RealThreads.run(2) { _ in
            do {
                let connection = try PostgresConnection.connect(cluster.socketConfig)
                defer { connection.close() }
                var first = true
                try connection.transaction(isolation: .serializable) { c in
                    _ = attempts.increment()
                    let n = try c.query("SELECT n FROM \(table) WHERE id = 1")[0].decode(0, as: Int64.self)
                    if first { first = false; bothRead.arrive() }
                    try c.execute("UPDATE \(table) SET n = $1 WHERE id = 1", [.int(n + 1)])
                }
            } catch {
                failures.add(1)
                Issue.record("\(error)")
            }
        }
        #expect(failures.current == 0)
        #expect(attempts.current == 3)
        #expect(try setup.query("SELECT n FROM \(table) WHERE id = 1")[0].decode(0, as: Int.self) == 2)
    }

    /// Two transactions that lock two rows in opposite orders: the server breaks the deadlock
    /// (40P01) and the pool runs the loser again.
    @Test func aDeadlockIsRetriedThroughThePool() throws {
        let cluster = try TestCluster.shared()
        let pool = PostgresPool(cluster.socketConfig, size: 2)
        defer { pool.close() }
        let table = uniqueName("locks")
        try pool.execute("CREATE TABLE \(table) (id int8 PRIMARY KEY, n int8 NOT NULL)")
        try pool.execute("INSERT INTO \(table) VALUES (1, 0), (2, 0)")

        let bothLocked = Rendezvous(2), attempts = Counter()
        RealThreads.run(2) { index in
            let (mine, theirs): (Int64, Int64) = index == 0 ? (1, 2) : (2, 1)
            var first = true
            do {
                try pool.transaction { c in
                    _ = attempts.increment()
                    try c.execute("UPDATE \(table) SET n = n + 1 WHERE id = $1", [.int(mine)])
                    if first { first = false; bothLocked.arrive() }
                    try c.execute("UPDATE \(table) SET n = n + 1 WHERE id = $1", [.int(theirs)])
                }
            } catch {
                Issue.record("\(error)")
            }
        }
        #expect(attempts.current == 3)
        let rows = try pool.query("SELECT n FROM \(table) ORDER BY id")
        #expect(try rows.map { try $0.decode(0, as: Int.self) } == [2, 2])
    }

    /// A conflict that never goes away: run exactly `maxAttempts` times, then the 40001 is thrown.
    @Test func retriesStopAtMaxAttempts() throws {
        let connection = try PostgresConnection.connect(try TestCluster.shared().socketConfig)
        defer { connection.close() }
        let attempts = Counter()
        let error = postgresError {
            try connection.transaction(isolation: .serializable, maxAttempts: 3) { c in
                _ = attempts.increment()
                try c.execute("DO $$ BEGIN RAISE EXCEPTION 'always in conflict' USING ERRCODE = '40001'; END $$")
            }
        }
        #expect(attempts.current == 3)
        #expect(error?.sqlState == SQLState.serializationFailure && error?.isTransactionConflict == true)
        #expect(try connection.query("SELECT 1")[0].decode(0, as: Int.self) == 1)
    }

    /// A body that swallows a statement's error cannot commit the rest by accident.
    @Test func aSwallowedErrorRollsBackAtCommit() throws {
        let connection = try PostgresConnection.connect(try TestCluster.shared().socketConfig)
        defer { connection.close() }
        let table = uniqueName("swallow")
        try connection.execute("CREATE TABLE \(table) (id int8 PRIMARY KEY)")
        let error = postgresError {
            try connection.transaction { c in
                try c.execute("INSERT INTO \(table) VALUES (1)")
                _ = try? c.execute("INSERT INTO \(table) VALUES (1)")
            }
        }
        #expect(error?.sqlState == "25P02")
        #expect(try connection.query("SELECT count(*) FROM \(table)")[0].decode(0, as: Int.self) == 0)
    }
}
