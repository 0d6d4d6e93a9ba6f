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

/// The part of `$filter` that compiles to SQL (`PostgresFilterSQL`), and what stays in Swift.
@Suite struct PostgresFilterSQLTests {
    static func compiled(_ filter: String) throws -> (sql: String, exact: Bool, parameters: [PostgresValue])? {
        let options = try ODataQueryOptions(filter: filter, orderBy: nil, top: nil, skip: nil, inlineCount: nil)
        var parameters: [PostgresValue] = []
        guard let part = PostgresFilterSQL.implied(try #require(options.filter), &parameters) else { return nil }
        return (part.sql, part.exact, parameters)
    }

    @Test func equalityOfTextAndBooleansCompilesWithBoundValues() throws {
        let text = try #require(try Self.compiled("text eq 'it''s' and complete eq false"))
        #expect(text.sql == "(r.fields -> $2::text = to_jsonb($1::text) AND r.fields -> $4::text = to_jsonb($3::boolean))")
        #expect(text.exact && text.parameters == [.text("it's"), .text("text"), .bool(false), .text("complete")])
        let either = try #require(try Self.compiled("'milk' eq text or complete eq true"))
        #expect(either.sql == "(r.fields -> $2::text = to_jsonb($1::text) OR r.fields -> $4::text = to_jsonb($3::boolean))" && either.exact)
    }

    @Test func theRestStaysInSwift() throws {
        // A conjunct that does not compile still leaves the others as a prefilter, not exact.
        let partial = try #require(try Self.compiled("text eq 'milk' and priority gt 2"))
        #expect(partial.sql == "(r.fields -> $2::text = to_jsonb($1::text))" && !partial.exact)
        for filter in ["priority eq 3", "text ne 'milk'", "not (complete eq true)", "tolower(text) eq 'milk'",
                       "text eq 'milk' or priority gt 2", "updatedAt gt datetimeoffset'2024-01-01T00:00:00Z'", "note eq null"] {
            #expect(try Self.compiled(filter) == nil, "\(filter)")
        }
    }
}
