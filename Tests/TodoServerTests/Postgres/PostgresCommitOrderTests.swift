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

/// Issue 18 item 4, step by step: a write on one node has its stamp and has not committed; a
/// second node writes and commits meanwhile; a puller pulls; then the first write commits. The pull
/// from the cursor must still see it. (A store that stamps without a gate lets the pull answer with
/// the second row alone; its cursor then passes the first row, which is lost.)
@Suite struct PostgresCommitOrderTests {
    /// Holds the first write that reaches it just before its commit, until the test opens it.
    final class Gate: Sendable {
        let reached = DispatchSemaphore(value: 0)
        let open = DispatchSemaphore(value: 0)
        private let first = Atomic(true)

        @Sendable func hold() {
            if first.exchange(false, ordering: .sequentiallyConsistent) {
                reached.signal()
                open.wait()
            }
        }
    }

    static func pull(_ store: PostgresTableStore, after cursor: StoredRow?) throws -> [StoredRow] {
        var query = "$orderby=updatedAt%20asc,id%20asc&$top=50&__includeDeleted=true"
        if let cursor {
            let condition = PullFilterText.cursorCondition(updatedAtName: "updatedAt", updatedAtText: Timestamp.format(milliseconds: cursor.updatedAt),
                                                           id: cursor.id)
            query = "$filter=" + PercentEncoding.encode(condition) + "&" + query
        }
        return try store.select("t", try PostgresQueryPlanTests.plan(query))?.rows ?? []
    }

    static func insert(_ store: PostgresTableStore, _ id: String) throws {
        try store.write("t") { w in
            let stamp = w.nextStamp()
            w.put(StoredRow(id: id, columns: [:], createdAt: stamp.updatedAt, updatedAt: stamp.updatedAt, version: stamp.version))
        }
    }

    /// Until `done` or some backend of the database waits for a lock (the pull at the gate).
    static func waitUntilBlockedOrDone(_ admin: PostgresConnection, _ database: TestDatabase, _ done: borrowing Atomic<Bool>) throws {
        for _ in 0..<1500 {
            if done.load(ordering: .sequentiallyConsistent) { return }
            let waiting = try admin.query("SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'",
                                          [.text(database.name)])[0].decode(0, as: Int64.self)
            if waiting > 0 { return }
            usleep(20_000)
        }
    }

    @Test func aWriteCommittingLateIsNotPassedByACursor() throws {
        let database = try TestDatabase()
        let gate = Gate()
        let slow = try PostgresTableStore(config: database.config, beforeCommit: gate.hold)
        let fast = try PostgresTableStore(config: database.config)
        defer { slow.close(); fast.close() }
        try fast.createTable("t", softDelete: true, idType: .string, columns: [:])
        let admin = try PostgresConnection.connect(database.config)
        defer { admin.close() }

        let work = DispatchGroup()
        let failures = Mutex<[String]>([])
        DispatchQueue.global().async(group: work) {
            do { try Self.insert(slow, "first") } catch { failures.withLock { $0.append("first: \(error)") } }
        }
        gate.reached.wait()  // "first" has its stamp and has not committed
        let secondDone = Atomic(false)
        DispatchQueue.global().async(group: work) {
            do { try Self.insert(fast, "second") } catch { failures.withLock { $0.append("second: \(error)") } }
            secondDone.store(true, ordering: .sequentiallyConsistent)
        }
        try Self.waitUntilBlockedOrDone(admin, database, secondDone)
        // The pull runs while "first" is in flight: it waits for it, or answers without both rows.
        let pulled = Mutex<[StoredRow]>([])
        let pullDone = Atomic(false)
        DispatchQueue.global().async(group: work) {
            do { try pulled.withLock { $0 = try Self.pull(fast, after: nil) } } catch { failures.withLock { $0.append("pull: \(error)") } }
            pullDone.store(true, ordering: .sequentiallyConsistent)
        }
        try Self.waitUntilBlockedOrDone(admin, database, pullDone)
        gate.open.signal()
        work.wait()
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        var copy = pulled.withLock { $0 }
        copy += try Self.pull(fast, after: copy.last)
        #expect(Set(copy.map(\.id)) == ["first", "second"], "pulled \(copy.map(\.id))")
    }
}
