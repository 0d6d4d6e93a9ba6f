import Testing
import TodoTestSupport
@testable import PostgresClient

/// A session parses and plans each statement once (named statements), and recovers when a
/// pooler in between drops them.
@Suite struct PreparedStatementTests {
    static func named(_ connection: PostgresConnection) throws -> [String] {
        try connection.query("SELECT name FROM pg_prepared_statements ORDER BY name").map { try $0.decode(0, as: String.self) }
    }

    @Test func aStatementIsPreparedOnceAndReused() throws {
        let connection = try PostgresConnection.connect(try TestCluster.shared().socketConfig)
        defer { connection.close() }
        for n in 1...3 { #expect(try connection.query("SELECT $1::int8 + 1", [.int(Int64(n))])[0].decode(0, as: Int64.self) == Int64(n + 1)) }
        // One name for the three runs of the statement, one for the catalog query itself.
        let names = try Self.named(connection)
        #expect(names == ["todo_1", "todo_2"], "\(names)")
        // Another parameter type is another statement.
        _ = try connection.query("SELECT $1::text", [.text("x")])
        #expect(try Self.named(connection).count == 3)
    }

    @Test func droppedStatementsArePreparedAgain() throws {
        let pool = PostgresPool(try TestCluster.shared().socketConfig, size: 1)
        defer { pool.close() }
        #expect(try pool.transaction { try $0.query("SELECT $1::int8 * 2", [.int(21)])[0].decode(0, as: Int64.self) } == 42)
        try pool.execute("DEALLOCATE ALL")  // what a pooler's DISCARD ALL does behind the client's back
        // The transaction's first attempt finds its BEGIN gone (26000) and runs again, parsing anew.
        #expect(try pool.transaction { try $0.query("SELECT $1::int8 * 2", [.int(4)])[0].decode(0, as: Int64.self) } == 8)
        #expect(try pool.withConnection { try Self.named($0) }.isEmpty == false)
    }

    /// BEGIN leaves with the body's first statement (one round trip less), and still comes first.
    @Test func theBeginTravelsWithTheFirstStatement() throws {
        let connection = try PostgresConnection.connect(try TestCluster.shared().socketConfig)
        defer { connection.close() }
        let level = try connection.transaction(isolation: .repeatableRead) {
            try $0.query("SELECT current_setting('transaction_isolation')")
        }
        #expect(try level[0].decode(0, as: String.self) == "repeatable read")
        #expect(try connection.transaction { _ in 7 } == 7)  // a body with no statement: nothing is sent
        #expect(connection.transactionStatus == UInt8(ascii: "I"))
        #expect(try connection.query("SELECT current_setting('transaction_isolation')")[0].decode(0, as: String.self) == "read committed")
    }

    /// A statement left for COMMIT runs in its round trip; if it fails, nothing commits.
    @Test func aStatementBeforeCommitThatFailsRollsBack() throws {
        let connection = try PostgresConnection.connect(try TestCluster.shared().socketConfig)
        defer { connection.close() }
        let table = uniqueName("before_commit")
        try connection.execute("CREATE TABLE \(table) (id int8 PRIMARY KEY)")
        try connection.transaction { c in
            try c.execute("INSERT INTO \(table) VALUES ($1)", [1])
            c.runBeforeCommit("SELECT $1::int8", [.int(5)])
        }
        let failed = postgresError {
            try connection.transaction { c in
                try c.execute("INSERT INTO \(table) VALUES ($1)", [2])
                c.runBeforeCommit("SELECT 1 / $1::int8", [.int(0)])
            }
        }
        #expect(failed?.sqlState == "22012", "\(String(describing: failed))")
        #expect(connection.transactionStatus == UInt8(ascii: "I"))
        #expect(try connection.query("SELECT id FROM \(table) ORDER BY id").map { try $0.decode(0, as: Int64.self) } == [1])
    }
}
