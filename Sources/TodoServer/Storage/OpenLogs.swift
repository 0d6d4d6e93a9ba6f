import Synchronization

/// Keeps at most `capacity` table logs open while nobody writes to them (issue 17).
///
/// Why: every table used to keep its log's descriptor open for the life of the server, so with
/// `--dynamic-tables` a client creating tables ran the process out of descriptors, and then it could
/// neither accept connections nor write. Now a table's log is opened by its first write and stays
/// open while it is among the `capacity` tables written most recently; a table pushed out of them is
/// closed as soon as it is idle: everything appended is durable, no fsync is running, it is not
/// being compacted. So descriptors are bounded by `capacity` plus the writes in flight, whatever the
/// number of tables. Closing only durable logs matters: a write-back error is reported to the
/// descriptors open when it happens, and an fsync on a later descriptor could miss it.
///
/// Each writer reports its table here after its write (`used`), outside every table lock, and then
/// closes the least recently used tables beyond `capacity` one at a time, each under its own lock:
/// so no lock is ever held while another is taken. A table that is busy at that moment stays open
/// and is tried again after a later write.
final class OpenLogs: Sendable {
    let capacity: Int

    private struct Entry {
        weak var table: StoredTable?
        var tick: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var tick: UInt64 = 0
    }

    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// `table`'s log is open and was just written: it becomes the most recently used; then the least
    /// recently used beyond `capacity` are closed where they are idle.
    func used(_ table: StoredTable) {
        let candidates: [(key: String, tick: UInt64, table: StoredTable?)] = state.withLock { state in
            state.tick += 1
            state.entries[table.key] = Entry(table: table, tick: state.tick)
            let excess = state.entries.count - capacity
            guard excess > 0 else { return [] }
            return state.entries.sorted { $0.value.tick < $1.value.tick }.prefix(excess)
                .map { ($0.key, $0.value.tick, $0.value.table) }
        }
        for candidate in candidates {
            // A table that is gone, or was closed by someone else, or was closed here: forget it,
            // unless it was written (and so reopened) meanwhile, which made its tick newer.
            let closed = candidate.table?.closeLogIfSettled() ?? true
            guard closed else { continue }
            state.withLock { state in
                if state.entries[candidate.key]?.tick == candidate.tick { state.entries[candidate.key] = nil }
            }
        }
    }

    /// Tables whose logs are counted open (tests).
    var count: Int { state.withLock { $0.entries.count } }
}
