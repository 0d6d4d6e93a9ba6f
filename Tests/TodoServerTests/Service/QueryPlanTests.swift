import Testing
import TableProtocol
import TodoBasics
import TodoModel
@testable import TodoServer

/// `QueryPlan`: a pull-shaped page is read from one snapshot in one pass of the (updatedAt, id)
/// index, and still costs what it returns, not what the table holds (protocol §8.12).
@Suite struct QueryPlanTests {
    /// 20,000 rows `row-0`…, stamped 1, 2, …; every 4th has `priority`.
    private func bigTable(_ dir: StorageTestDirectory) throws -> TableStorage {
        let storage = try dir.open(clock: .fixed(0))
        try storage.createTable("big", softDelete: true)
        try storage.write("big") { w in
            for i in 0..<20_000 {
                let (v, u) = w.nextStamp()
                let columns: [String: JSONValue] = i % 4 == 0 ? ["priority": .number(Double(i))] : [:]
                w.put(StoredRow(id: "row-\(i)", columns: columns, createdAt: u, updatedAt: u, version: v, deleted: i % 10 == 9))
            }
        }
        return storage
    }

    private func plan(filter: String?, top: Int, includeDeleted: Bool) throws -> QueryPlan {
        var query = QueryParameters()
        query.filter = filter
        query.orderby = "updatedAt asc,id asc"
        query.top = String(top)
        query.includeDeleted = includeDeleted
        return try QueryPlan(query, pageSize: 50)
    }

    private func cursor(_ updatedAt: Int64, _ id: String) -> String {
        let t = Timestamp.format(milliseconds: updatedAt)
        return "(updatedAt gt datetimeoffset'\(t)') or ((updatedAt eq datetimeoffset'\(t)') and (id gt '\(id)'))"
    }

    @Test func aPullPageCostsWhatItReturns() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let storage = try bigTable(dir)
        defer { storage.close() }
        // row-i has updatedAt i + 1. From the cursor of row-10000, with deleted rows: the cursor's
        // own row (the index is entered at its updatedAt), 50 rows, and the one that shows another
        // page follows.
        let all = try plan(filter: cursor(10_001, "row-10000"), top: 50, includeDeleted: true)
        let page = all.finish(try #require(storage.read("big") { all.take(from: $0) }))
        #expect(page.rows.map(\.id) == (10_001...10_050).map { "row-\($0)" })
        #expect(page.more && page.examined == 52)
        #expect(page.rows.allSatisfy { row in row.columns.keys.allSatisfy { page.schema.columns[$0] != nil } })

        // Without deleted rows and with a residual filter, the rows skipped are the extra cost.
        let some = try plan(filter: "(priority ge 0) and (\(cursor(10_001, "row-10000")))", top: 10, includeDeleted: false)
        let filtered = some.finish(try #require(storage.read("big") { some.take(from: $0) }))
        #expect(filtered.rows.map(\.id) == stride(from: 10_004, through: 10_040, by: 4).map { "row-\($0)" })
        #expect(filtered.examined == 45)  // row-10000 up to row-10044, the 11th match
    }

    /// The client's one-row query (protocol §10.3) is a lookup, and answers what a scan would.
    @Test func aOneRowQueryIsALookup() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let storage = try bigTable(dir)
        defer { storage.close() }
        let cases: [(String, Bool, [String])] = [
            ("id eq 'row-5'", true, ["row-5"]),
            ("id eq 'ROW-5'", true, []),  // `eq` on strings is case-sensitive (§8.6)
            ("tolower(id) eq 'row-5'", true, ["row-5"]),
            ("'row-5' eq tolower(id)", true, ["row-5"]),
            ("tolower(id) eq 'ROW-5'", true, []),
            ("id eq 'row-9'", true, ["row-9"]),  // soft-deleted
            ("id eq 'row-9'", false, []),
            ("id eq 'row-4' and priority ge 0", true, ["row-4"]),
            ("id eq 'row-5' and priority ge 0", true, []),
            ("id eq 'nosuch'", true, []),
        ]
        let all = try storage.read("big") { $0.allRows() } ?? []
        for (filter, includeDeleted, expected) in cases {
            var query = QueryParameters()
            query.filter = filter
            query.includeDeleted = includeDeleted
            let plan = try QueryPlan(query, pageSize: 50)
            #expect(plan.idLookup != nil, "\(filter)")
            let page = plan.finish(try #require(storage.read("big") { plan.take(from: $0) }))
            #expect(page.rows.map(\.id) == expected, "\(filter)")
            #expect(page.examined <= 1, "looked up, not scanned: \(filter)")
            // The same answer as evaluating the filter on every row.
            let parsed = try ODataQueryOptions.parseFilter(filter)
            #expect(all.filter { (includeDeleted || !$0.deleted) && parsed.matches(RowValues(row: $0)) }.map(\.id) == expected, "\(filter)")
        }
    }
}
