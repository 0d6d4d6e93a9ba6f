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

    @Test func comparisonsCompileWithBoundValuesOnly() throws {
        let text = try #require(try Self.compiled("text eq 'it''s' and not (complete ne false)"))
        #expect(text.sql == """
            (CASE WHEN jsonb_typeof((r.fields -> $1::text)) = 'string' THEN (r.fields ->> $2::text) COLLATE "C" = $3::text ELSE false END \
            AND CASE WHEN jsonb_typeof((r.fields -> $4::text)) = 'boolean' THEN ((r.fields -> $4::text))::boolean = $5::boolean ELSE false END)
            """)
        #expect(text.exact && text.parameters == [.text("text"), .text("text"), .text("it's"), .text("complete"), .bool(false)])
        let function = try #require(try Self.compiled("startswith(id, 'a''b')"))
        #expect(function.sql == "CASE WHEN true THEN left(r.id, char_length($1::text)) = $1::text ELSE false END"
                && function.parameters == [.text("a'b")])
    }

    @Test func theRestStaysInSwift() throws {
        // A conjunct that does not compile still leaves the others as a prefilter, not exact.
        let partial = try #require(try Self.compiled("priority gt 2 and tolower(text) eq 'milk'"))
        #expect(partial.sql.hasPrefix("(CASE WHEN jsonb_typeof((r.fields -> $1::text)) = 'number'") && !partial.exact)
        #expect(partial.parameters == [.text("priority"), .double(2)])
        for filter in ["tolower(text) eq 'milk'", "toupper(text) eq 'MILK'", "length(text) eq 3", "priority add 1 gt 2",
                       "text eq 'milk' or priority add 1 gt 2", "not (text eq 'milk' and priority add 1 gt 2)",
                       "text gt datetimeoffset'2024-01-01T00:00:00Z'", "version eq 'AAAAAAAAB9E='", "text eq note",
                       "text eq 'a\u{0}b'", "startswith(tolower(text), 'm')", "indexof(text, 'm') eq 0"] {
            #expect(try Self.compiled(filter) == nil, "\(filter)")
        }
        // No parsed literal is NaN or infinite, but a tree built by hand may be: float8 orders NaN.
        var parameters: [PostgresValue] = []
        for number in [Double.nan, .infinity] {
            let tree = FilterExpression(.binary(.lt, FilterExpression(.member(.column("priority"))), FilterExpression(.literal(.number(number)))))
            #expect(PostgresFilterSQL.implied(tree, &parameters) == nil && parameters.isEmpty)
        }
    }
}
