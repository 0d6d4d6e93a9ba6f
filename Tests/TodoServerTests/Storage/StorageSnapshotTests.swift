import Testing
import TodoBasics
import TodoModel
@testable import TodoServer

/// Issue 22 at the storage level: one `read` sees one moment of a table.
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
        #expect(storage.read("nosuch") { $0.schema } == nil)
    }
}
