import Testing
import TodoBasics
import TodoModel
@testable import TodoServer

@Suite struct TableStorageTests {
    @Test func rowsRoundTripAndIdsIgnoreCase() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let storage = try dir.open()
        defer { storage.close() }
        try storage.createTable("TodoItem", softDelete: true)
        let stored = try storage.putTestRow("todoitem", "Abc", ["text": "milk", "done": false, "n": 2.5, "note": nil])

        #expect(try storage.row("TODOITEM", id: "aBC") == stored)
        #expect(try storage.row("todoitem", id: "Abc")?.id == "Abc")
        #expect(try storage.row("todoitem", id: "other") == nil)
        #expect(try storage.allRows("todoitem") == [stored])
        #expect(try storage.rowCount("todoitem", includeDeleted: true) == 1)
        #expect(try storage.row("nosuch", id: "Abc") == nil)
        #expect(try storage.allRows("nosuch").isEmpty)
    }

    @Test func everythingSurvivesARestart() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        var storage = try dir.open()
        try storage.createTable("TodoItem", softDelete: true)
        try storage.createTable("Plain", softDelete: false)
        let a = try storage.putTestRow("todoitem", "A", ["text": "unicode ☃ \"quoted\"\n", "big": 1e300, "neg": -0.125])
        let b = try storage.putTestRow("todoitem", "B", ["text": "gone"], deleted: true)
        _ = try storage.putTestRow("todoitem", "C", ["text": "hard"])
        try storage.hardDeleteTestRow("todoitem", "c")
        let p = try storage.putTestRow("plain", "x", [:])
        let schema = try storage.schema("todoitem")
        storage.close()

        storage = try dir.open()
        defer { storage.close() }
        #expect(storage.tableNames() == ["Plain", "TodoItem"])
        #expect(try storage.schema("TODOITEM") == schema)
        #expect(try storage.schema("plain") == TableSchema(name: "Plain", softDelete: false))
        #expect(try storage.allRows("todoitem") == [a, b])
        #expect(try storage.row("todoitem", id: "c") == nil)
        #expect(try storage.allRows("plain") == [p])
        #expect(try storage.rowCount("todoitem", includeDeleted: false) == 1)
        #expect(try storage.rowCount("todoitem", includeDeleted: true) == 2)
    }

    @Test func schemaLearnsColumnsAndTheirFirstNonNullType() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let storage = try dir.open()
        defer { storage.close() }
        try storage.createTable("t", softDelete: true)
        try storage.putTestRow("t", "1", ["a": nil, "b": "x", "c": 1, "d": true])
        let untyped: ColumnType? = nil
        #expect(try storage.schema("t")?.columns == ["a": untyped, "b": .string, "c": .number, "d": .boolean])
        try storage.putTestRow("t", "2", ["a": 3, "b": 5])  // storage does not judge types: the service does
        #expect(try storage.schema("t")?.columns == ["a": .number, "b": .string, "c": .number, "d": .boolean])
        try storage.write("t") { w in
            w.setColumnType("e", nil)
            w.setColumnType("b", .boolean)
            #expect(w.schema.columns["e"] == .some(nil))
        }
        #expect(try storage.schema("t")?.columns["b"] == .boolean)
        #expect(try storage.schema("t")?.columns["e"] == .some(nil))
    }

    @Test func aBodyThatThrowsWritesNothing() throws {
        struct Refused: Error {}
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        var storage = try dir.open()
        try storage.createTable("t", softDelete: true)
        let kept = try storage.putTestRow("t", "keep", ["n": 1])
        let logSize = StorageTestDirectory.read(dir.log("t")).count
        #expect(throws: Refused.self) {
            try storage.write("t") { w in
                let (v, u) = w.nextStamp()
                w.put(StoredRow(id: "new", columns: ["x": 1], createdAt: u, updatedAt: u, version: v))
                w.remove(id: "keep")
                w.setColumnType("x", .string)
                #expect(w.row(id: "NEW") != nil && w.row(id: "keep") == nil)
                throw Refused()
            }
        }
        #expect(try storage.allRows("t") == [kept])
        #expect(try storage.schema("t")?.columns["x"] == nil)
        #expect(StorageTestDirectory.read(dir.log("t")).count == logSize)
        storage.close()
        storage = try dir.open()
        defer { storage.close() }
        #expect(try storage.allRows("t") == [kept])
    }

    @Test func aWriteSeesItsOwnChangesAndIsAppliedWhole() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let storage = try dir.open()
        defer { storage.close() }
        try storage.createTable("t", softDelete: true)
        try storage.putTestRow("t", "old", [:])
        let rows = try storage.write("t") { w -> [StoredRow] in
            var made: [StoredRow] = []
            for id in ["b", "a", "c"] {
                let (v, u) = w.nextStamp()
                let row = StoredRow(id: id, columns: ["name": .string(id)], createdAt: u, updatedAt: u, version: v)
                w.put(row)
                made.append(row)
            }
            w.remove(id: "OLD")
            w.remove(id: "c")
            #expect(w.row(id: "A") == made[1] && w.row(id: "c") == nil && w.row(id: "old") == nil)
            return Array(made[0...1])
        }
        #expect(try storage.allRows("t") == rows)
    }

    @Test func writesAndNamesAreChecked() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let storage = try dir.open()
        defer { storage.close() }
        #expect(storageError { try storage.write("missing") { _ in } } == .noSuchTable)
        for bad in ["", "1abc", "a-b", "a b", "é", String(repeating: "a", count: 129), "../x"] {
            #expect(storageError("\(bad)") { try storage.createTable(bad, softDelete: true) } == .invalidTableName)
        }
        try storage.createTable("_Ok_1", softDelete: false)
        try storage.createTable("_OK_1", softDelete: true)  // exists in another case: no-op
        #expect(storage.tableNames() == ["_Ok_1"])
        #expect(try storage.schema("_ok_1")?.softDelete == false)
        let error = #expect(throws: StorageError.self) {
            try storage.write("_ok_1") { w in
                w.put(StoredRow(id: "x", columns: [:], createdAt: 0, updatedAt: Int64.max, version: 1))
            }
        }
        #expect(error?.kind == .invalidValue)
    }

    @Test func aSecondOpenOfTheSameDirectoryIsRefused() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let storage = try dir.open()
        var tuning = TableStorage.Tuning()
        tuning.lockWaitMilliseconds = 0
        let error = #expect(throws: StorageError.self) { try dir.open(tuning: tuning) }
        #expect(error?.kind == .locked)
        try storage.createTable("t", softDelete: true)
        storage.close()
        #expect(storageError { try storage.write("t") { _ in } } == .unavailable)
        #expect(storageError { try storage.createTable("u", softDelete: true) } == .unavailable)
        // Reopens wait as the server does (up to 1 s): a process another test is spawning at
        // this moment may hold a copy of the lock's descriptor until its exec closes it.
        try dir.open().close()
        // Dropping the last reference releases the directory too.
        do {
            let dropped = try dir.open()
            try dropped.createTable("t", softDelete: true)
            try dropped.putTestRow("t", "kept")
        }
        let reopened = try dir.open()
        defer { reopened.close() }
        #expect(try reopened.row("t", id: "kept") != nil)
    }
}
