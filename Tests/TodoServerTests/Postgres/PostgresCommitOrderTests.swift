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

/// Issue 18 item 4, step by step: a write on one node holds its stamp and has not committed; a
/// second node writes meanwhile; a puller pulls; then the first write commits. The pull from the
/// cursor must still see it. (A store that stamps without serialising writes lets the second
/// write commit a larger updatedAt first; the cursor then passes the first row, which is lost.)
@Suite struct PostgresCommitOrderTests {
    /// A clock whose first reading is taken, then held until the test opens the gate.
    final class Gate: Sendable {
        let reached = DispatchSemaphore(value: 0)
        let open = DispatchSemaphore(value: 0)
        private let first = Atomic(true)

        var clock: Clock {
            Clock { [self] in
                let now = Clock.live.nowMilliseconds()
                if first.exchange(false, ordering: .sequentiallyConsistent) {
                    reached.signal()
                    open.wait()
                }
                return now
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

    @Test func aWriteCommittingLateIsNotPassedByACursor() throws {
        let database = try TestDatabase()
        let gate = Gate()
        let slow = try PostgresTableStore(config: database.config, clock: gate.clock)
        let fast = try PostgresTableStore(config: database.config)
        defer { slow.close(); fast.close() }
        try fast.createTable("t", softDelete: true, idType: .string, columns: [:])
        let admin = try PostgresConnection.connect(database.config)
        defer { admin.close() }

        let writes = DispatchGroup()
        let failures = Mutex<[String]>([])
        DispatchQueue.global().async(group: writes) {
            do { try Self.insert(slow, "first") } catch { failures.withLock { $0.append("first: \(error)") } }
        }
        gate.reached.wait()  // "first" has its stamp and has not committed
        let secondDone = Atomic(false)
        DispatchQueue.global().async(group: writes) {
            do { try Self.insert(fast, "second") } catch { failures.withLock { $0.append("second: \(error)") } }
            secondDone.store(true, ordering: .sequentiallyConsistent)
        }
        // Either "second" committed, or it waits for "first" (a backend waiting on a lock).
        for _ in 0..<1500 {
            if secondDone.load(ordering: .sequentiallyConsistent) { break }
            let waiting = try admin.query("SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'",
                                          [.text(database.name)])[0].decode(0, as: Int64.self)
            if waiting > 0 { break }
            usleep(20_000)
        }
        var copy = try Self.pull(fast, after: nil)
        gate.open.signal()
        writes.wait()
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        copy += try Self.pull(fast, after: copy.last)
        #expect(Set(copy.map(\.id)) == ["first", "second"], "pulled \(copy.map(\.id))")
    }
}
