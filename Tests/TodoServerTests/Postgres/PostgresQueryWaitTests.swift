#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import PostgresClient
import Synchronization
import Testing
import TableProtocol
import TodoBasics
import TodoModel
@testable import TodoServer

/// The wait of the last millisecond belongs to queries, not to writes (`PostgresWriteGate`): a
/// write commits as soon as the clock has reached its stamp, so a row can commit in the very
/// millisecond a query reads as its bound. The query then waits, without the gate, until the
/// clock has passed the table's newest stamp, and takes the gate again for its bound.
///
/// Both tests put the newest stamp 1.5 s ahead of the clock (a committed row written by SQL), so
/// that the query's wait is long enough to script around, with no timing in the assertions.
@Suite struct PostgresQueryWaitTests {
    static let lead: Int64 = 1_500

    /// Commits a row of table `t` stamped `lead` ms ahead of the database's clock.
    static func insertAhead(_ admin: PostgresConnection, _ id: String) throws {
        try admin.execute("""
            INSERT INTO todo_rows (table_key, id_key, id, created_at, updated_at, version, deleted, fields)
            SELECT 't', $1, $1, todo_clock_ms(), todo_clock_ms() + $2, nextval('todo_versions'), false, '{}'
            """, [.text(id), .int(lead)])
    }

    /// Read-your-writes: a row committed before a query began is in its answer even when its stamp
    /// is not below the clock yet. (A query that answers below its clock without waiting leaves it
    /// out: so did the gate before this change, when writes waited instead.)
    @Test func aRowCommittedBeforeAQueryIsInItsAnswerWhateverItsStamp() throws {
        let database = try TestDatabase()
        let store = try PostgresTableStore(config: database.config)
        defer { store.close() }
        try store.createTable("t", softDelete: true, idType: .string, columns: [:])
        let admin = try PostgresConnection.connect(database.config)
        defer { admin.close() }
        try Self.insertAhead(admin, "ahead")
        let pulled = try PostgresCommitOrderTests.pull(store, after: nil)
        #expect(pulled.map(\.id) == ["ahead"])
    }

    /// A write that enters the gate while a query waits for the clock, and commits late, is not
    /// passed by the query's cursor: the query's bound comes from a second pass through the gate,
    /// which waits for that write. (A query that reads its bound after the wait without taking the
    /// gate again answers "ahead" alone; its cursor then passes "late", which is lost.)
    @Test func aWriteEnteringWhileAQueryWaitsIsNotPassedByItsCursor() throws {
        let database = try TestDatabase()
        let gate = PostgresCommitOrderTests.Gate()
        let slow = try PostgresTableStore(config: database.config, beforeCommit: gate.hold)
        let fast = try PostgresTableStore(config: database.config)
        defer { slow.close(); fast.close() }
        try fast.createTable("t", softDelete: true, idType: .string, columns: [:])
        let admin = try PostgresConnection.connect(database.config)
        defer { admin.close() }
        try Self.insertAhead(admin, "ahead")

        let work = DispatchGroup()
        let failures = Mutex<[String]>([])
        let pulled = Mutex<[StoredRow]>([])
        let pullDone = Atomic(false)
        DispatchQueue.global().async(group: work) {
            do { try pulled.withLock { $0 = try PostgresCommitOrderTests.pull(fast, after: nil) } } catch {
                failures.withLock { $0.append("pull: \(error)") }
            }
            pullDone.store(true, ordering: .sequentiallyConsistent)
        }
        try Self.waitUntilSleepingOrDone(admin, database, pullDone)  // the query waits for the clock, the gate open
        DispatchQueue.global().async(group: work) {
            do { try PostgresCommitOrderTests.insert(slow, "late") } catch { failures.withLock { $0.append("late: \(error)") } }
        }
        gate.reached.wait()  // "late" has its stamp, below "ahead", and has not committed
        try PostgresCommitOrderTests.waitUntilBlockedOrDone(admin, database, pullDone)
        gate.open.signal()
        work.wait()
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        var copy = pulled.withLock { $0 }
        copy += try PostgresCommitOrderTests.pull(fast, after: copy.last)
        #expect(Set(copy.map(\.id)) == ["ahead", "late"], "pulled \(copy.map(\.id))")
    }

    /// Until `done` or some backend of the database sleeps in `pg_sleep` (the query's wait).
    static func waitUntilSleepingOrDone(_ admin: PostgresConnection, _ database: TestDatabase, _ done: borrowing Atomic<Bool>) throws {
        for _ in 0..<1500 {
            if done.load(ordering: .sequentiallyConsistent) { return }
            let sleeping = try admin.query("SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND wait_event = 'PgSleep'",
                                           [.text(database.name)])[0].decode(0, as: Int64.self)
            if sleeping > 0 { return }
            usleep(2_000)
        }
    }
}
