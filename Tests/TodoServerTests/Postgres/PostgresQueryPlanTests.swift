import PostgresClient
import Testing
import TableProtocol
import TodoModel
@testable import TodoServer

/// Issue 18 item 3: an incremental pull page is an index range scan in PostgreSQL (no sort, no
/// scan of the table), so it costs the same at any table size; and its values are parameters.
@Suite struct PostgresQueryPlanTests {
    static func plan(_ query: String) throws -> QueryPlan {
        let target = try HTTPRequestTarget(parsing: "/tables/todoitem?" + query)
        return try QueryPlan(QueryParameters.parse(target.queryItems, generation: .mobileApps, byID: false), pageSize: 50)
    }

    /// PostgreSQL's plan of the query, as JSON text.
    static func explain(_ query: PostgresQuery, _ connection: PostgresConnection) throws -> String {
        try connection.query("EXPLAIN (FORMAT JSON) " + query.sql, query.parameters)[0].decode(0, as: String.self)
    }

    @Test func aPullPageIsAnIndexRangeScan() throws {
        let h = try TableServerHarness(backend: .postgres)
        let connection = try PostgresConnection.connect(h.database!.config)
        defer { connection.close() }
        try connection.execute("""
            INSERT INTO todo_rows (table_key, id_key, id, created_at, updated_at, version, deleted, fields)
            SELECT 'todoitem', 'r' || g, 'r' || g, g, g, g, g % 10 = 0, '{"text":"x"}' FROM generate_series(1, 50000) g
            """)
        try connection.execute("ANALYZE todo_rows")
        let schema = try #require(try h.store.schema("todoitem"))
        let cursor = PullFilterText.cursorCondition(updatedAtName: "updatedAt", updatedAtText: "1970-01-01T00:00:25.000Z", id: "r25000")
        for query in ["$filter=" + PercentEncoding.encode(cursor) + "&$orderby=updatedAt%20asc,id%20asc&$top=50&__includeDeleted=true",
                      "$filter=" + PercentEncoding.encode(cursor) + "&$orderby=updatedAt%20asc,id%20asc&$top=50",
                      "$orderby=updatedAt%20asc,id%20asc&$top=50"] {
            let sql = PostgresQuery(plan: try Self.plan(query), key: "todoitem", schema: schema)
            #expect(!sql.sql.contains("r25000") && sql.parameters.contains(.text("r25000")) == query.contains("filter"))
            let plan = try Self.explain(sql, connection)
            #expect(plan.contains("\"Index Name\": \"todo_rows_pull\"") && !plan.contains("\"Sort\"") && !plan.contains("Seq Scan"),
                    "\(query): \(plan)")
            #expect(plan.contains("\"Node Type\": \"Limit\""), "\(query): \(plan)")
        }
        // The page is the next 50 after the cursor.
        let page = try h.send("GET", "/tables/todoitem?$filter=" + PercentEncoding.encode(cursor) + "&$orderby=updatedAt%20asc,id%20asc&$top=3&__includeDeleted=true").array
        #expect(page.ids == ["r25001", "r25002", "r25003"])
    }
}
