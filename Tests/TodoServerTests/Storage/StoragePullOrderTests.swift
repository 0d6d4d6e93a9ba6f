import Testing
import TodoBasics
import TodoModel
@testable import TodoServer

/// `rows(updatedAfter:…)`: the (updatedAt, id) order the incremental pull pages through (§10.5),
/// and its cost (§8.12).
@Suite struct StoragePullOrderTests {
    /// Rows r0…r9 stamped 1000…1009; r3 and r6 soft-deleted later (so they move to the end).
    func makeTable(_ dir: StorageTestDirectory) throws -> (TableStorage, [StoredRow]) {
        let storage = try dir.open(clock: .fixed(1_000))
        try storage.createTable("t", softDelete: true)
        for i in 0..<10 { try storage.putTestRow("t", "r\(i)", ["n": .number(Double(i))]) }
        try storage.putTestRow("t", "r3", ["n": 3], deleted: true)
        try storage.putTestRow("t", "r6", ["n": 6], deleted: true)
        return (storage, try storage.allRows("t"))
    }

    @Test func rowsComeInUpdateOrderWithinBounds() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let (storage, all) = try makeTable(dir)
        defer { storage.close() }
        #expect(all.map(\.id) == ["r0", "r1", "r2", "r4", "r5", "r7", "r8", "r9", "r3", "r6"])
        #expect(all.map(\.updatedAt) == [1_000, 1_001, 1_002, 1_004, 1_005, 1_007, 1_008, 1_009, 1_010, 1_011])

        func ids(_ after: Int64?, inclusive: Bool = false, deleted: Bool = true, limit: Int = 100) -> [String] {
            try! storage.rows("t", updatedAfter: after, inclusive: inclusive, includeDeleted: deleted, limit: limit).map(\.id)
        }
        #expect(ids(nil) == all.map(\.id))
        #expect(ids(nil, deleted: false) == ["r0", "r1", "r2", "r4", "r5", "r7", "r8", "r9"])
        #expect(ids(1_004) == ["r5", "r7", "r8", "r9", "r3", "r6"])
        #expect(ids(1_004, inclusive: true) == ["r4", "r5", "r7", "r8", "r9", "r3", "r6"])
        #expect(ids(1_003) == ids(1_003, inclusive: true))  // no row at 1003 any more
        #expect(ids(1_004, deleted: false, limit: 3) == ["r5", "r7", "r8"])
        #expect(ids(1_008, deleted: false) == ["r9"])
        #expect(ids(1_009, deleted: false).isEmpty)
        #expect(ids(1_009) == ["r3", "r6"])
        #expect(ids(1_011).isEmpty)
        #expect(ids(1_011, inclusive: true) == ["r6"])
        #expect(ids(-5, limit: 2) == ["r0", "r1"])
        #expect(ids(nil, limit: 0).isEmpty)
        #expect(try storage.rows("nosuch", updatedAfter: nil, inclusive: false, includeDeleted: true, limit: 5).isEmpty)
    }

    @Test func pagingByCursorSeesEveryRowOnceEvenWithWritesBetweenPages() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let (storage, _) = try makeTable(dir)
        defer { storage.close() }
        var seen: [String] = []
        var cursor: Int64? = nil
        var page = 0
        while true {
            let rows = try storage.rows("t", updatedAfter: cursor, inclusive: false, includeDeleted: true, limit: 3)
            if rows.isEmpty { break }
            seen += rows.map(\.id)
            cursor = rows.last!.updatedAt
            if page == 1 { try storage.putTestRow("t", "r0", ["n": 100]) }  // an earlier row changes (§132)
            if page == 2 { try storage.putTestRow("t", "late") }
            page += 1
        }
        #expect(seen == ["r0", "r1", "r2", "r4", "r5", "r7", "r8", "r9", "r3", "r6", "r0", "late"])
    }

    @Test func rowsWithEqualUpdatedAtAreOrderedByIdScalars() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let storage = try dir.open()
        defer { storage.close() }
        try storage.createTable("t", softDelete: true)
        // One stamp for several rows: order falls back to the id, by Unicode scalars (not Swift's `<`).
        let ids = ["b", "a", "\u{e9}", "e\u{301}", "B", "z"]
        try storage.write("t") { w in
            let (v, u) = w.nextStamp()
            for id in ids { w.put(StoredRow(id: id, columns: [:], createdAt: u, updatedAt: u, version: v)) }
        }
        // "B" replaced "b" (same id ignoring case); "\u{e9}" and "e\u{301}" are two rows. Compared as
        // scalars, because Swift's `==` would call those two equal.
        let scalars = try storage.allRows("t").map { $0.id.unicodeScalars.map(\.value) }
        #expect(scalars == ["B", "a", "e\u{301}", "z", "\u{e9}"].map { $0.unicodeScalars.map(\.value) })
        #expect(try storage.row("t", id: "E\u{301}")?.id.unicodeScalars.count == 2)
        #expect(try storage.row("t", id: "\u{c9}")?.id.unicodeScalars.count == 1)
    }

    @Test func aPageCostsWhatItReturnsNotWhatTheTableHolds() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let storage = try dir.open()
        defer { storage.close() }
        try storage.createTable("big", softDelete: true)
        for batch in 0..<100 {
            try storage.write("big") { w in
                for i in 0..<1_000 {
                    let (v, u) = w.nextStamp()
                    w.put(StoredRow(id: "row-\(batch)-\(i)", columns: ["n": .number(Double(i))], createdAt: u, updatedAt: u,
                                    version: v))
                }
            }
        }
        // Update every 10th row of the first half: their old positions disappear from the index.
        try storage.write("big") { w in
            for batch in 0..<50 {
                for i in stride(from: 0, to: 1_000, by: 10) {
                    let (v, u) = w.nextStamp()
                    var row = w.row(id: "row-\(batch)-\(i)")!
                    (row.version, row.updatedAt, row.deleted) = (v, u, i % 20 == 0)
                    w.put(row)
                }
            }
        }
        #expect(try storage.rowCount("big", includeDeleted: true) == 100_000)
        let all = try storage.allRows("big")
        #expect(all.count == 100_000)
        #expect(zip(all, all.dropFirst()).allSatisfy { $0.updatedAt < $1.updatedAt })

        let cursor = all[50_000].updatedAt
        let page = try storage.scanRows("big", updatedAfter: cursor, inclusive: false, includeDeleted: true, limit: 50)
        #expect(page.rows.map(\.id) == all[50_001..<50_051].map(\.id))
        #expect(page.examined == 50)

        // Skipping deleted rows costs the rows skipped: 2,500 deleted rows sit in the last 5,000.
        let tail = try storage.scanRows("big", updatedAfter: all[94_999].updatedAt, inclusive: false, includeDeleted: false,
                                    limit: 10_000)
        #expect(tail.rows.count == 2_500)
        #expect(tail.examined == 5_000)

        let end = try storage.scanRows("big", updatedAfter: all.last!.updatedAt, inclusive: false, includeDeleted: true,
                                   limit: 50)
        #expect(end.rows.isEmpty && end.examined == 0)
    }
}
