import Glibc
import Synchronization
import Testing
import TodoBasics
import TodoModel
@testable import TodoServer

/// Compaction rewrites a log to its live rows and must change nothing a client can see: rows,
/// schema, the version counter and each table's updatedAt floor.
@Suite struct StorageCompactionTests {
    func lineCount(_ path: String) -> Int { StorageTestDirectory.read(path).filter { $0 == 0x0A }.count }

    @Test func aCompactedLogHoldsTheSameTable() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        var storage = try dir.open(clock: .fixed(1_000))
        try storage.createTable("t", softDelete: true)
        for round in 0..<20 {
            for i in 0..<10 { try storage.putTestRow("t", "r\(i)", ["round": .number(Double(round)), "i": .number(Double(i))]) }
        }
        try storage.putTestRow("t", "r3", ["gone": true], deleted: true)
        try storage.putTestRow("t", "extra", ["x": nil])
        try storage.hardDeleteTestRow("t", "extra")  // the largest version and updatedAt are in this record only
        let rows = try storage.allRows("t"), schema = try storage.schema("t")
        #expect(lineCount(dir.log("t")) == 1 + 203)

        storage.compact("t")
        // Header, one record of column types, one record of (up to 256) rows.
        #expect(lineCount(dir.log("t")) == 3)
        #expect(try storage.allRows("t") == rows && storage.schema("t") == schema)
        storage.close()

        storage = try dir.open(clock: .fixed(1_000))
        defer { storage.close() }
        #expect(try storage.allRows("t") == rows && storage.schema("t") == schema)
        let next = try storage.putTestRow("t", "new")
        #expect(next.version == 204 && next.updatedAt == 1_000 + 203)
        #expect(lineCount(dir.log("t")) == 4)
    }

    @Test func logsCompactThemselvesAndWritersCarryOnMeanwhile() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        var storage = try dir.open(tuning: .compactingEarly(minimumRows: 8))
        try storage.createTable("t", softDelete: true)
        let shared = storage
        StorageTestThreads.run(8) { thread in
            for i in 0..<100 {
                try! shared.putTestRow("t", "w\(thread)-\(i % 5)", ["i": .number(Double(i))])
                if i % 10 == 9 { try! shared.hardDeleteTestRow("t", "w\(thread)-\(i % 5)") }
            }
        }
        let rows = try storage.allRows("t")
        #expect(rows.count == 8 * 4)  // the last op of each thread deleted its row 4
        // 880 row records were written; without compaction the log would have as many lines.
        #expect(lineCount(dir.log("t")) < 200)
        storage.close()

        storage = try dir.open()
        defer { storage.close() }
        #expect(try storage.allRows("t") == rows)
        #expect(try storage.putTestRow("t", "after").version == 881)
    }

    @Test func aFailedCompactionLeavesTheOldLogInUse() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        var storage = try dir.open()
        try storage.createTable("t", softDelete: true)
        for i in 0..<5 { try storage.putTestRow("t", "r\(i % 2)") }
        let before = StorageTestDirectory.read(dir.log("t"))
        // A directory where the temporary file goes makes creating it fail.
        try LocalFileSystem().createDirectory(dir.data + "/t.log.tmp")
        storage.compact("t")
        #expect(StorageTestDirectory.read(dir.log("t")) == before)
        let row = try storage.putTestRow("t", "r9")
        storage.close()
        _ = rmdir(dir.data + "/t.log.tmp")
        storage = try dir.open()
        defer { storage.close() }
        #expect(try storage.row("t", id: "r9") == row && storage.rowCount("t", includeDeleted: true) == 3)
    }
}
