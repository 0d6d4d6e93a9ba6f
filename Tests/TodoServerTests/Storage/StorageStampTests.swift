import Testing
import TodoBasics
import TodoModel
@testable import TodoServer

/// Protocol §4.4.2 (one server-wide version counter, never reused) and §4.6.1 (updatedAt strictly
/// increasing within a table, whatever the clock does), across writes, tables and restarts.
@Suite struct StorageStampTests {
    @Test func versionsCountUpOncePerWriteAcrossTables() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let storage = try dir.open()
        defer { storage.close() }
        try storage.createTable("a", softDelete: true)
        try storage.createTable("b", softDelete: true)
        var versions: [UInt64] = []
        for i in 0..<6 { versions.append(try storage.putTestRow(i % 2 == 0 ? "a" : "b", "r\(i)").version) }
        #expect(versions == [1, 2, 3, 4, 5, 6])
        try storage.hardDeleteTestRow("a", "r0")  // takes version 7
        #expect(try storage.putTestRow("b", "r9").version == 8)
        try storage.hardDeleteTestRow("a", "no such row")  // no row, no write, no version
        #expect(try storage.putTestRow("b", "r10").version == 9)
    }

    @Test func versionsAreNeverReusedAfterARestart() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        var storage = try dir.open()
        try storage.createTable("a", softDelete: true)
        try storage.createTable("b", softDelete: false)
        try storage.putTestRow("a", "x")
        try storage.putTestRow("b", "y")
        try storage.putTestRow("b", "z")
        try storage.hardDeleteTestRow("b", "z")  // the largest version is now only in a hard-delete record
        try storage.hardDeleteTestRow("b", "y")
        storage.close()

        storage = try dir.open()
        #expect(try storage.putTestRow("a", "w").version == 6)
        // A stamp taken by a write that puts nothing is still never handed out again.
        let taken = try storage.write("a") { w in w.nextStamp().version }
        #expect(taken == 7)
        storage.close()

        storage = try dir.open()
        defer { storage.close() }
        #expect(try storage.putTestRow("b", "v").version == 8)
    }

    @Test func updatedAtIsStrictlyIncreasingWithAStoppedClock() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let storage = try dir.open(clock: .fixed(1_000))
        defer { storage.close() }
        try storage.createTable("t", softDelete: true)
        try storage.createTable("u", softDelete: true)
        let stamps = try (0..<5).map { try storage.putTestRow("t", "r\($0)").updatedAt }
        #expect(stamps == [1_000, 1_001, 1_002, 1_003, 1_004])
        // Each table has its own sequence.
        #expect(try storage.putTestRow("u", "x").updatedAt == 1_000)
        // Two stamps in one write are distinct too.
        let pair = try storage.write("t") { w in (w.nextStamp().updatedAt, w.nextStamp().updatedAt) }
        #expect(pair == (1_005, 1_006))
    }

    @Test func updatedAtNeverGoesBackWhenTheClockDoesNorAfterARestart() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let time = StorageTestClock(50_000)
        var storage = try dir.open(clock: time.clock)
        try storage.createTable("t", softDelete: false)
        #expect(try storage.putTestRow("t", "a").updatedAt == 50_000)
        time.set(60_000)
        #expect(try storage.putTestRow("t", "b").updatedAt == 60_000)
        time.set(10_000)  // the clock steps back
        #expect(try storage.putTestRow("t", "c").updatedAt == 60_001)
        try storage.hardDeleteTestRow("t", "c")  // a hard delete's stamp counts too (60_002)
        storage.close()

        storage = try dir.open(clock: time.clock)
        defer { storage.close() }
        #expect(try storage.putTestRow("t", "d").updatedAt == 60_003)
        time.set(70_000)
        #expect(try storage.putTestRow("t", "e").updatedAt == 70_000)
    }

    @Test func aRowPutWithALaterUpdatedAtRaisesTheTablesFloor() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let storage = try dir.open(clock: .fixed(100))
        defer { storage.close() }
        try storage.createTable("t", softDelete: true)
        try storage.write("t") { w in
            w.put(StoredRow(id: "future", columns: [:], createdAt: 5_000, updatedAt: 5_000, version: 1))
        }
        #expect(try storage.putTestRow("t", "next").updatedAt == 5_001)
    }
}
