import Glibc
import Testing
import TableProtocol
import TodoBasics
import TodoModel
@testable import TodoServer

/// The storage hands back a `DurabilityTicket` instead of waiting for its fsync: writes are
/// appended and applied at once, and `settle` makes a group of them durable with one wait per log.
@Suite struct DurabilityTicketTests {
    @Test func writesWithTicketsWaitForNothingUntilSettleMakesThemDurableWithOneFsync() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let storage = try dir.open()
        defer { storage.close() }
        try storage.createTable("t", softDelete: true)
        let commit = storage.handle("t")!.commit
        let syncs = commit.syncCount
        var tickets: [DurabilityTicket] = []
        for i in 0..<20 {
            var ticket = DurabilityTicket.durable
            try storage.putTestRow("t", "r\(i)", ticket: &ticket)
            #expect(!ticket.isDurable)
            tickets.append(ticket)
        }
        // Appended and applied, but not yet durable: nobody waited.
        #expect(commit.syncCount == syncs)
        #expect(commit.positions.durable < commit.positions.appended)

        let failures = DurabilityTicket.settle(tickets)
        #expect(failures.count == 20 && failures.allSatisfy { $0 == nil })
        #expect(commit.syncCount == syncs + 1)
        #expect(commit.positions.durable == commit.positions.appended)
        #expect(try storage.rowCount("t", includeDeleted: false) == 20)
    }

    @Test func oneTicketForTwoTablesWaitsForEachLogOnce() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let storage = try dir.open()
        defer { storage.close() }
        try storage.createTable("t", softDelete: true)
        try storage.createTable("u", softDelete: true)
        var ticket = DurabilityTicket.durable
        try storage.putTestRow("t", "a", ticket: &ticket)
        try storage.putTestRow("u", "b", ticket: &ticket)
        try storage.putTestRow("t", "c", ticket: &ticket)
        #expect(ticket.waits.count == 2)
        let syncs = storage.syncCount
        try ticket.wait()
        #expect(storage.syncCount == syncs + 2)
        for table in ["t", "u"] {
            let commit = storage.handle(table)!.commit
            #expect(commit.positions.durable == commit.positions.appended)
        }
    }

    @Test func aWriteThatStartsACompactionStillWaitsAndCompacts() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let storage = try dir.open(tuning: .compactingEarly(minimumRows: 8))
        defer { storage.close() }
        try storage.createTable("t", softDelete: true)
        let table = storage.handle("t")!
        var tickets: [DurabilityTicket] = []
        // Compaction starts when the log holds more than 2 × 8 row records.
        for i in 0..<16 {
            var ticket = DurabilityTicket.durable
            try storage.putTestRow("t", "x", ["n": .number(Double(i))], ticket: &ticket)
            tickets.append(ticket)
        }
        #expect(table.commit.positions.durable < table.commit.positions.appended)
        var last = DurabilityTicket.durable
        try storage.putTestRow("t", "x", ["n": 16], ticket: &last)
        // The 17th waited for itself (and so for the 16 before it), then compacted to one row.
        #expect(last.isDurable)
        #expect(table.commit.positions.durable == table.commit.positions.appended)
        #expect(table.state.withLock { $0.rowEntries } == 1)
        #expect(DurabilityTicket.settle(tickets).allSatisfy { $0 == nil })
        #expect(try storage.row("t", id: "x")?.columns["n"] == .number(16))
    }

    @Test func afterAFailedFsyncTheTicketsThatWroteOrReadThatTableFail() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let storage = try dir.open()
        defer { storage.close() }
        try storage.createTable("t", softDelete: true)
        try storage.createTable("u", softDelete: true)
        try storage.putTestRow("t", "durable")
        // Read before the failing write: it saw durable bytes only.
        var before = DurabilityTicket.durable
        #expect(storage.read("t", ticket: &before) { $0.row(id: "durable") } != nil)
        FsyncFault.inject(storage, "t")

        var wrote = DurabilityTicket.durable, read = DurabilityTicket.durable
        var other = DurabilityTicket.durable, wroteToo = DurabilityTicket.durable
        try storage.putTestRow("t", "lost", ticket: &wrote)
        #expect(storage.read("t", ticket: &read) { $0.row(id: "durable") } != nil)
        try storage.putTestRow("u", "fine", ticket: &other)
        try storage.putTestRow("t", "lost too", ticket: &wroteToo)
        let failures = DurabilityTicket.settle([wrote, read, other, wroteToo, before])

        // The read of a durable row saw it in a snapshot holding the write whose fsync failed: it
        // could as well have shown that write, so it fails too (issue 17). The read made before
        // that write, and the write to the other table, hold.
        #expect(failures.map { $0 != nil } == [true, true, false, true, false])
        #expect(failures[0]?.kind == .unavailable)
        #expect(failures[0]?.message.contains("fsync failed") == true)
        // The table is poisoned; the other one goes on.
        #expect(storageError { try storage.putTestRow("t", "later") } == .unavailable)
        try storage.putTestRow("u", "later")
    }

    @Test func aDurableTicketWaitsForNothing() throws {
        #expect(DurabilityTicket.durable.isDurable)
        try DurabilityTicket.durable.wait()
        #expect(DurabilityTicket.settle([.durable, .durable]).allSatisfy { $0 == nil })
    }
}

/// The fault seam for a failed fsync: the table's group commit gets descriptor -1, so its next
/// `fdatasync` fails (EBADF) and poisons the table, exactly as an EIO would, while appends still
/// go to the real file.
///
/// The real descriptor stays the table log's: `storage.close()` (or `OpenLogs`) closes it. A test
/// must not close it too: in the shared test process its number may belong to another test's
/// socket by then (`FsyncFaultTests`).
enum FsyncFault {
    static func inject(_ storage: TableStorage, _ table: String) {
        let handle = storage.handle(table)!
        _ = handle.commit.replaceFile(fd: -1, path: handle.path, durableThrough: 0)
    }
}
