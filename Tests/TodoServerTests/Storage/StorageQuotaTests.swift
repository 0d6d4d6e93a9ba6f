import Glibc
import Testing
import TodoBasics
import TodoModel
@testable import TodoServer

/// Issue 17 item 4: the memory the quota counts is exactly the rows held, through inserts, updates,
/// soft and hard deletes, refused writes, failed writes and restarts; limits are checked before
/// anything is appended.
@Suite struct StorageQuotaTests {
    static func heldBytes(_ storage: TableStorage) -> Int {
        storage.tableNames().reduce(0) { total, name in
            total + (storage.handle(name)?.state.withReadLock { $0.memory.memoryBytes } ?? 0)
        }
    }

    @Test func theCountedMemoryIsWhatTheRowsHold() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        var limits = StorageLimits()
        limits.maxRowBytes = 200
        let storage = try TableStorage(directory: dir.data, clock: .live, tuning: .init(), limits: limits)
        try storage.createTable("a", softDelete: true)
        try storage.createTable("b", softDelete: false)
        for n in 0..<20 { try storage.putTestRow(n % 2 == 0 ? "a" : "b", "r\(n)", ["text": .string(String(repeating: "x", count: n * 5))]) }
        for n in 0..<20 where n % 3 == 0 { try storage.putTestRow(n % 2 == 0 ? "a" : "b", "r\(n)", ["n": 1]) }  // updates
        try storage.putTestRow("a", "r2", deleted: true)  // a soft delete
        try storage.hardDeleteTestRow("b", "r1")
        #expect(storageError {  // too large: refused before anything is appended
            try storage.putTestRow("a", "huge", ["text": .string(String(repeating: "y", count: 300))])
        } == .rowTooLarge)
        #expect(try storage.row("a", id: "huge") == nil)
        #expect(storage.quota.usedBytes == Self.heldBytes(storage))
        #expect(storage.quota.usedBytes > 20 * RowFootprint.rowOverhead / 2)
        let before = storage.quota.usedBytes
        storage.close()
        let reopened = try TableStorage(directory: dir.data, clock: .live, tuning: .init(), limits: limits)
        defer { reopened.close() }
        #expect(reopened.quota.usedBytes == before, "the same rows count the same after a restart")
    }

    @Test func aWriteThatFailsGivesItsReservationBack() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        var tuning = TableStorage.Tuning()
        tuning.openLogs = 1
        let storage = try dir.open(tuning: tuning)
        defer { storage.close() }
        try storage.createTable("a", softDelete: true)
        try storage.createTable("b", softDelete: true)
        try storage.putTestRow("a", "one")
        try storage.putTestRow("b", "one")  // a's log is closed now: only one stays open
        let used = storage.quota.usedBytes
        unlink(dir.log("a"))  // so reopening it for the next write fails
        #expect(storageError { try storage.putTestRow("a", "two", ["text": "lost"]) } == .io)
        #expect(storage.quota.usedBytes == used)
        #expect(try storage.row("a", id: "two") == nil)
        try storage.putTestRow("b", "two")  // other tables go on
    }

    @Test func theBudgetIsSharedByConcurrentWritersAndNeverOverdrawn() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        var limits = StorageLimits()
        limits.memoryBudget = 64 << 10
        let storage = try TableStorage(directory: dir.data, clock: .live, tuning: .init(), limits: limits)
        defer { storage.close() }
        for n in 0..<8 { try storage.createTable("t\(n)", softDelete: true) }
        StorageTestThreads.run(8) { thread in
            for i in 0..<200 { _ = try? storage.putTestRow("t\(thread)", "r\(i)", ["text": .string(String(repeating: "z", count: 100))]) }
        }
        #expect(storage.quota.usedBytes <= 64 << 10)
        #expect(storage.quota.usedBytes == Self.heldBytes(storage))
        #expect(storage.quota.usedBytes > (64 << 10) - 1_000, "the budget is used up to the last row that fits")
    }

    @Test func sizesInOptionsAndMessages() {
        #expect(ByteCount.parse("64K") == 65_536)
        #expect(ByteCount.parse("1G") == 1 << 30)
        #expect(ByteCount.parse("512m") == 512 << 20)
        #expect(ByteCount.parse("1000") == 1000)
        for bad in ["", "K", "-1M", "1.5G", "0", "12T"] { #expect(ByteCount.parse(bad) == nil, "\(bad)") }
        #expect(ByteCount.text(100) == "100 bytes")
        #expect(ByteCount.text(1536) == "1.5 KiB")
        #expect(ByteCount.text(1 << 30) == "1 GiB")
    }
}
