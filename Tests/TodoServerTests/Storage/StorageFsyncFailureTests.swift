import Glibc
import Testing
import TableProtocol
import TodoBasics
import TodoModel
@testable import TodoServer

/// Issue 17 item 2: a write whose fsync failed is never served. The storage runs on
/// `FaultyLogFileIO`, which fails the fdatasync a test arms with EIO.
@Suite struct StorageFsyncFailureTests {
    /// Every way storage hands out rows, each with whether it showed a row with this id. A read
    /// that throws shows nothing.
    static func shown(_ storage: TableStorage, _ id: String) -> [String: Bool] {
        func has(_ rows: [StoredRow]?) -> Bool { rows?.contains { $0.id == id } ?? false }
        return [
            "row by id": has((try? storage.row("t", id: id)).map { $0.map { [$0] } ?? [] }),
            "all rows": has(try? storage.allRows("t")),
            "pull page": has(try? storage.rows("t", updatedAfter: 0, inclusive: true, includeDeleted: true, limit: 50)),
            "snapshot": has(try? storage.read("t") { $0.allRows() } ?? []),
            "id order": has(try? storage.rowsInIDOrder("t")),
        ]
    }

    @Test func afterAFailedFsyncNoReadShowsTheWriteThatFailedAndARestartServesWhatTheLogHolds() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let io = FaultyLogFileIO()
        let storage = try TableStorage(directory: dir.data, clock: .live, tuning: .init(), io: io)
        try storage.createTable("t", softDelete: true)
        let kept = try storage.putTestRow("t", "kept", ["n": 1])
        let durableLog = StorageTestDirectory.read(dir.log("t"))

        io.failSync(losingUnsyncedBytes: true)
        let failure = #expect(throws: StorageError.self) { try storage.putTestRow("t", "lost", ["n": 2]) }
        #expect(failure?.kind == .unavailable)
        #expect(io.failedSyncs == 1)

        #expect(Self.shown(storage, "lost").filter(\.value).keys.sorted() == [], "a read showed the write that failed")
        // Fail-stop: the table answers no read at all, and says why and what to do.
        let readError = #expect(throws: StorageError.self) { _ = try storage.row("t", id: "kept") }
        #expect(readError?.kind == .unavailable && readError?.path == dir.log("t"))
        #expect(readError?.message.contains("fsync failed (Input/output error)") == true, "\(String(describing: readError))")
        #expect(readError?.message.contains("restart todo-server") == true, "\(String(describing: readError))")
        #expect(storageError { try storage.putTestRow("t", "later") } == .unavailable)

        storage.close()
        #expect(Self.shown(storage, "lost").filter(\.value).keys.sorted() == [], "closing showed the write")
        let reopened = try dir.open()
        defer { reopened.close() }
        #expect(StorageTestDirectory.read(dir.log("t")) == durableLog)
        #expect(try reopened.allRows("t") == [kept])
        let next = try reopened.putTestRow("t", "after restart")
        #expect(next.version > kept.version)
    }

    /// The bytes of the write reached the disk after all (the fault kept them): a restart serves
    /// them, as it serves whatever the log holds. The 503 said the outcome was unknown.
    @Test func aRestartServesAWriteWhoseFsyncFailedIfItsBytesAreInTheLog() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let io = FaultyLogFileIO()
        let storage = try TableStorage(directory: dir.data, clock: .live, tuning: .init(), io: io)
        try storage.createTable("t", softDelete: true)
        let kept = try storage.putTestRow("t", "kept")
        io.failSync(losingUnsyncedBytes: false)
        #expect(storageError { try storage.putTestRow("t", "unknown", ["n": 2]) } == .unavailable)
        #expect(Self.shown(storage, "unknown").filter(\.value).keys.sorted() == [])
        storage.close()

        let reopened = try dir.open()
        defer { reopened.close() }
        #expect(try reopened.allRows("t").map(\.id) == ["kept", "unknown"])
        #expect(try reopened.row("t", id: "unknown")?.version ?? 0 > kept.version)
    }

    /// Pipelined answers: a read answered before the group's fsync failed, which saw the write,
    /// fails with its ticket like the write's own answer; so does a read of another row of that
    /// table (its snapshot holds the write too), but not a read of another table.
    @Test func inAGroupWhoseFsyncFailsReadsThatSawTheWriteAreNotSent() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let io = FaultyLogFileIO()
        let storage = try TableStorage(directory: dir.data, clock: .live, tuning: .init(), io: io)
        defer { storage.close() }
        try storage.createTable("t", softDelete: true)
        try storage.createTable("u", softDelete: true)
        try storage.putTestRow("t", "kept")
        try storage.putTestRow("u", "other")
        io.failSync(losingUnsyncedBytes: true)

        var tickets = Array(repeating: DurabilityTicket.durable, count: 4)
        _ = try? storage.putTestRow("t", "lost", ticket: &tickets[0])
        #expect(storage.read("t", ticket: &tickets[1]) { $0.row(id: "lost") } != nil)
        #expect(storage.read("t", ticket: &tickets[2]) { $0.row(id: "kept") } != nil)
        #expect(storage.read("u", ticket: &tickets[3]) { $0.row(id: "other") } != nil)
        let failures = DurabilityTicket.settle(tickets)
        #expect(failures.map { $0 != nil } == [true, true, true, false])
    }
}
