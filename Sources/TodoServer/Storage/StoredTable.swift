import Glibc
import Synchronization
import TodoBasics

/// What the table lock guards: the in-memory table and the end of its log.
struct TableLockedState {
    let memory: TableMemory
    var log: TableLogFile
    /// Bytes ever appended to this table's log (see `LogGroupCommit`).
    var lsn: UInt64 = 0
    /// Row puts and removals in the current log file; compaction starts when they outnumber the
    /// rows by `TableStorage.Tuning.compactionFactor`.
    var rowEntries: Int
    var compacting = false
    /// After a failed compaction, wait for this many row entries before trying again.
    var compactionRetryAt = 0
}

/// One table: its lock, its log and its group commit.
///
/// Writers hold the lock while their body runs and while their record is appended, and release it
/// without waiting for the fsync: they hand back a `DurabilityTicket`, so the next writer can
/// append while the previous one's answer waits, which is what lets group commit batch them.
/// Readers take the same lock briefly and hand back a ticket for the bytes behind what they saw,
/// so no one is ever shown a write a crash could lose; after a failed fsync that ticket fails, so
/// a table whose disk failed shows nothing (issue 17).
final class StoredTable: Sendable {
    let key: String
    let path: String
    let state: ReadWriteLocked<TableLockedState>
    let commit: LogGroupCommit
    /// Where this table's log files (and those compaction writes) append and fsync.
    let io: any LogFileIO
    /// The limits every write is checked against (shared by all tables).
    let quota: StorageQuota
    /// Which logs stay open (shared by all tables): this one is opened by a write, and closed
    /// when it is idle and others were written since.
    let openLogs: OpenLogs
    /// The latest schema and the end of the record that last changed it, apart from the table
    /// lock: every request looks its table up, and must not queue behind writers holding that
    /// lock. Never paired with rows: it may be newer than rows read before it, or older than rows
    /// read after it (issue 22); an answer's rows and schema come from one `read`.
    private let latestSchema: Mutex<(schema: TableSchema, lsn: UInt64)>

    init(key: String, path: String, memory: TableMemory, log: TableLogFile, rowEntries: Int, quota: StorageQuota,
         openLogs: OpenLogs, onFailure: @escaping @Sendable (StorageError) -> Void) {
        self.key = key
        self.path = path
        self.quota = quota
        self.openLogs = openLogs
        io = log.io
        commit = LogGroupCommit(fd: log.fd, path: log.path, table: memory.schema.name, io: log.io, onFailure: onFailure)
        latestSchema = Mutex((memory.schema, 0))
        state = ReadWriteLocked(TableLockedState(memory: memory, log: log, rowEntries: rowEntries))
    }

    /// Reads under the lock. The ticket holds once what was read is durable; it fails when that
    /// cannot happen (a failed fsync), since the read may include a write that was answered 503.
    func read<T: Sendable>(_ body: (TableMemory) -> T) -> (value: T, ticket: DurabilityTicket) {
        let (value, lsn) = state.withReadLock { state in (body(state.memory), state.lsn) }
        return (value, .log(commit, through: lsn))
    }

    /// The latest schema; the ticket holds once the last write that changed it is durable. Unlike
    /// `read`, it neither takes the table lock nor needs every write appended so far: needing the
    /// fsync of unrelated inserts made every insert wait for the one before it.
    func schema() -> (value: TableSchema, ticket: DurabilityTicket) {
        let (schema, lsn) = latestSchema.withLock { $0 }
        return (schema, .log(commit, through: lsn))
    }

    /// Runs `body` and appends its change, without waiting for the fsync: the ticket holds once
    /// the record is durable (see `LogGroupCommit`). A write that starts a compaction waits here,
    /// then compacts, and hands back a durable ticket.
    func write<T>(counter: StorageVersionCounter, clock: Clock, tuning: TableStorage.Tuning,
                  _ body: (inout TableWrite) throws -> T) throws -> (value: T, ticket: DurabilityTicket)
    {
        var result: T?
        var plan: CompactionPlan?
        var appended = false
        let lsn = try state.withLock { state throws -> UInt64 in
            if let failure = commit.currentFailure { throw failure }
            var write = TableWrite(memory: state.memory, counter: counter, clock: clock)
            result = try body(&write)
            let change = write.makeCommit()
            if !change.isEmpty {
                let line = TableLogFraming.line(try TableLogCoder.encode(.commit(change)))
                let growth = try quota.admit(change, to: state.memory)
                do throws(StorageError) {
                    try openLog(&state)
                    try state.log.append(line)
                } catch {
                    quota.refund(growth)
                    if error.kind == .unavailable { commit.fail(error, report: true) }
                    throw error
                }
                appended = true
                state.memory.apply(change)
                quota.applied(growth)
                state.lsn += UInt64(line.count)
                if !change.columns.isEmpty {
                    let snapshot = (state.memory.schema, state.lsn)
                    latestSchema.withLock { $0 = snapshot }
                }
                state.rowEntries += change.puts.count + change.removals.count
                commit.noteAppended(through: state.lsn)
                plan = startCompactionIfDue(&state, counter: counter, tuning: tuning)
            }
            return state.lsn
        }
        if appended { openLogs.used(self) }
        // Also for a write that changed nothing: what its body saw must be durable before it answers.
        guard let plan else { return (result!, .log(commit, through: lsn)) }
        do {
            try commit.waitDurable(through: lsn)
        } catch {
            abandon(nil, plan)
            throw error
        }
        compact(plan)
        return (result!, .durable)
    }

    /// Opens the log for a write if `OpenLogs` closed it (the group commit syncs the new descriptor).
    private func openLog(_ state: inout TableLockedState) throws(StorageError) {
        guard !state.log.isOpen else { return }
        try state.log.reopen()
        _ = commit.replaceFile(fd: state.log.fd, path: path, durableThrough: state.lsn)
    }

    /// Closes the log's descriptor if nothing needs it (see `OpenLogs`): true when it is closed now.
    func closeLogIfSettled() -> Bool {
        state.withLock { state in
            guard state.log.isOpen else { return true }
            guard !state.compacting, commit.isSettled(through: state.lsn) else { return false }
            let fd = state.log.release()
            _ = commit.replaceFile(fd: -1, path: path, durableThrough: state.lsn)
            _ = Glibc.close(fd)
            return true
        }
    }

    /// Makes everything appended durable, then stops all writes and closes the file. Reads go on
    /// answering from memory, unless an fsync failed: then what was not durable stays unshown.
    func close() {
        state.withLock { state in
            let durable = (try? commit.waitDurable(through: state.lsn)) != nil
            commit.fail(StorageError(.unavailable, path: path, "the storage is closed"), report: false)
            _ = commit.replaceFile(fd: -1, path: path, durableThrough: durable ? state.lsn : 0)
            // The same descriptor as the group commit's; released from the log too, so that a later
            // `closeLogIfSettled` finds it closed and never closes a number reused since.
            let fd = state.log.release()
            if fd >= 0 { _ = Glibc.close(fd) }
        }
    }
}
