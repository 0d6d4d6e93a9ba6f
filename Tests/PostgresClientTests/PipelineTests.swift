import Testing
import TodoTestSupport
@testable import PostgresClient

/// Several statements in one round trip, each with its own result, in order.
@Suite struct PipelineTests {
    @Test func eachStatementGetsItsResultInOneRoundTrip() throws {
        let connection = try PostgresConnection.connect(try TestCluster.shared().socketConfig)
        defer { connection.close() }
        let before = connection.roundTrips
        let results = try connection.runPipeline([("SELECT $1::int8 + 1", [.int(1)]), ("SELECT 'b' WHERE false", []),
                                                  ("SELECT g FROM generate_series(1, 3) g", [])])
        #expect(connection.roundTrips - before == 1)
        #expect(results.count == 3)
        #expect(try results[0].rows.map { try $0.decode(0, as: Int64.self) } == [2])
        #expect(results[1].rows.isEmpty && results[1].commandTag == "SELECT 0")
        #expect(try results[2].rows.map { try $0.decode(0, as: Int32.self) } == [1, 2, 3])
    }

    /// A failing statement stops the ones after it; in a transaction, nothing of it commits.
    @Test func aFailureStopsTheRest() throws {
        let connection = try PostgresConnection.connect(try TestCluster.shared().socketConfig)
        defer { connection.close() }
        let table = uniqueName("pipeline")
        try connection.execute("CREATE TABLE \(table) (id int8 PRIMARY KEY)")
        let failed = postgresError {
            try connection.transaction { c in
                _ = try c.runPipeline([("INSERT INTO \(table) VALUES (1)", []), ("SELECT 1 / $1::int8", [.int(0)]),
                                       ("INSERT INTO \(table) VALUES (2)", [])])
            }
        }
        #expect(failed?.sqlState == "22012")
        #expect(try connection.query("SELECT count(*) FROM \(table)")[0].decode(0, as: Int64.self) == 0)
        #expect(try connection.query("SELECT 5")[0].decode(0, as: Int32.self) == 5, "the session goes on")
    }
}
