import Testing
import TodoBasics
import TodoModel
@testable import TodoServer

/// Issue 22 at the storage level: one `read` sees one moment of a table, and a table created by a
/// write appears with that write, whole, or not at all.
@Suite struct StorageSnapshotTests {
    @Test func aSnapshotsSchemaListsEveryColumnItsRowsHave() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let storage = try dir.open()
        defer { storage.close() }
        try storage.createTable("t", softDelete: true)
        try storage.putTestRow("t", "a", ["k": 1])
        try storage.putTestRow("t", "b", ["k": 2, "c2": 2])
        try storage.putTestRow("t", "a", ["k": 3, "c3": 3, "z": .null])
        let (schema, rows) = try #require(storage.read("t") { ($0.schema, $0.allRows()) })
        #expect(rows.map(\.id) == ["b", "a"])
        for row in rows { #expect(row.columns.keys.allSatisfy { schema.columns[$0] != nil }, "\(row)") }
        #expect(Set(schema.columns.keys) == ["k", "c2", "c3", "z"])
        #expect(try storage.read("nosuch") { $0.schema } == nil)
    }

    @Test func aCreatingWriteMakesTheTableWithItsFirstRowDurably() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        var storage = try dir.open()
        let row = try storage.write("Fresh", creatingWithSoftDelete: true) { w in
            #expect(w.schema.name == "Fresh" && w.schema.columns.isEmpty)
            let (v, u) = w.nextStamp()
            let row = StoredRow(id: "first", columns: ["k": 1, "c1": 1], createdAt: u, updatedAt: u, version: v)
            w.put(row)
            return row
        }
        // The table, its columns and its row appear together.
        let seen = try storage.read("fresh") { ($0.schema, $0.allRows()) }
        #expect(seen?.0 == TableSchema(name: "Fresh", softDelete: true, columns: ["k": .number, "c1": .number]))
        #expect(seen?.1 == [row])
        // Once it exists, the same call is a plain write to it.
        let second = try storage.write("FRESH", creatingWithSoftDelete: false) { w in
            #expect(w.row(id: "FIRST") == row)
            let (v, u) = w.nextStamp()
            let second = StoredRow(id: "second", columns: [:], createdAt: u, updatedAt: u, version: v)
            w.put(second)
            return second
        }
        #expect(try storage.tableNames() == ["Fresh"] && storage.schema("fresh")?.softDelete == true)
        storage.close()
        storage = try dir.open()
        defer { storage.close() }
        #expect(try storage.allRows("fresh") == [row, second])
        #expect(try storage.schema("fresh")?.columns == ["k": .number, "c1": .number])
    }

    @Test func aCreatingWriteThatFailsOrChangesNothingCreatesNoTable() throws {
        struct Refused: Error {}
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        var storage = try dir.open()
        #expect(throws: Refused.self) {
            try storage.write("ghost", creatingWithSoftDelete: true) { w in
                let (v, u) = w.nextStamp()
                w.put(StoredRow(id: "x", columns: ["k": 1], createdAt: u, updatedAt: u, version: v))
                throw Refused()
            }
        }
        let unchanged = try storage.write("ghost", creatingWithSoftDelete: true) { w in w.row(id: "x") == nil }
        #expect(unchanged)
        #expect(try storage.schema("ghost") == nil && storage.tableNames().isEmpty)
        #expect(storageError { try storage.write("no-such", creatingWithSoftDelete: true) { _ in } } == .invalidTableName)
        storage.close()
        #expect(storageError { try storage.write("late", creatingWithSoftDelete: true) { _ in } } == .unavailable)
        #expect(try LocalFileSystem().listDirectory(dir.data) == ["LOCK"], "no log, not even a temporary one")
        storage = try dir.open()
        defer { storage.close() }
        #expect(storage.tableNames().isEmpty)
    }
}
