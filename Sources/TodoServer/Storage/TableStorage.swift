import Glibc
import Synchronization
import TodoBasics
import TodoModel

// On-disk format of the server's data directory (format version 1).
//
// The data directory holds `LOCK` (an flock(2) lock file naming the running server, so two servers
// never share a directory; the kernel drops it when the process dies) and one append-only log per
// table, `<table name in lower case>.log`. A log is a sequence of records, one per line:
// `<CRC-32 of the JSON as 8 lower-case hex digits> <compact JSON object>\n`. The first record is a
// header, `{"format":"todo-table-log","formatVersion":1,"lastUpdatedAt":…,"lastVersion":…,
// "softDelete":…,"table":"<configured spelling>"}`, with `"idType":"autoIncrement","lastId":…` for
// a table with integer ids (absent: string ids, as in every log written before them). Every later
// record is one committed write, applied whole or not at all: `{"columns":{"<name>":"string"|"number"|"boolean"|null},
// "delete":["<id>"],"put":[<row>],"stamp":{"updatedAt":…,"version":…}}`, each member optional,
// where a row is `{"createdAt":…,"deleted":…,"id":"…","updatedAt":…,"values":{…},"version":…}`
// with dates in Unix milliseconds and the version as the integer of the server-wide counter. On
// start the server replays every log into memory; the version counter resumes after the largest
// version any log mentions, and each table's updatedAt after its largest updatedAt (hard deletes
// keep their stamp in the log for that reason; a record may be a stamp alone).
//
// Torn tail or damage (issue 17): each record is appended by one write and ends with its LF, so a
// crash during an append leaves a record cut short, without its LF, at the very end: the bytes
// after the last LF are a torn tail, never acknowledged, and start-up cuts them off; if they
// mention a version or updatedAt above what the log holds, it then appends a stamp record with
// them, so the counter never hands them out again. A line that ends in LF was written whole:
// if its CRC fails, or it verifies but does not decode, it was changed after it was written (and
// may have been acknowledged), wherever it is, the last line included. That stops start-up with
// an error naming the file and byte offset; nothing is changed or reset. `todo-server check` lists
// every such line; `todo-server repair` keeps every record that verifies, moves the damaged lines
// and the torn tail byte for byte to `<table>.log.damaged.<n>`, and ends the log with a stamp
// record above every version and updatedAt those bytes mention (see `TableLogRepair`). Residual
// case: a power loss that persists a later page of an unacknowledged append but not an earlier
// one leaves a whole line that fails its CRC; it is reported as damage (the safe side) and repair
// moves it aside. The format is unchanged (version 1): old logs open as before.
//
// When a log holds more than twice as many row records as the table has rows (and at least
// 20,000), it is compacted: the live table is written to `<table>.log.tmp`, fsynced, and renamed
// over the log, then the directory is fsynced; a `.tmp` file found on start is an unfinished
// compaction or table creation and is deleted.

/// The durable storage of the table server: every table in memory, every write in an fsynced log.
///
/// Writes to one table are serialised by its lock and made durable by group commit (see
/// `LogGroupCommit`); tables are independent of each other except for the shared version counter.
/// Reads are served from memory and never show a write that is not yet durable. The calls the
/// server makes return before the fsync, with a `DurabilityTicket` the answer must wait for; the
/// public ones wait for it themselves.
///
/// A failed fsync stops its table (fail-stop, issue 17): the write is answered 503, and so is every
/// later read or write of that table, until a restart replays the log. Why not read-only from the
/// last durable point: memory cannot be rolled back to it, and rebuilding it from the file at run
/// time would mean a second recovery path, used only when the disk is already failing; the restart
/// uses the one recovery path there is. Other tables go on: each log has its own fsyncs, and a
/// failed writeback is reported on the file it belongs to.
public final class TableStorage: Sendable {
    /// Knobs that tests turn down; the defaults suit the server.
    struct Tuning: Sendable {
        var compactionFactor = 2
        var compactionMinimumRows = 10_000
        var lockWaitMilliseconds = 1_000
        /// Table logs kept open while idle (`OpenLogs`).
        var openLogs = 64
    }

    public let directory: String
    let clock: Clock
    let tuning: Tuning
    let counter: StorageVersionCounter
    let tables: ReadWriteLocked<[String: StoredTable]>
    let lock: Mutex<StoreLock?>
    /// Where log appends and fsyncs go: the system, or a test's faults.
    let io: any LogFileIO
    /// Told when a table stops serving after a failed fsync (the server logs it).
    let onFailure: @Sendable (StorageError) -> Void
    /// What the tables may hold, and what they hold now (issue 17).
    let quota: StorageQuota
    /// The table logs kept open while idle (issue 17).
    let openLogs: OpenLogs

    /// Opens (creating if missing) a data directory and recovers every table: a torn last record
    /// after a crash is cut off; anything else unreadable is an error naming the file and offset.
    /// `onFailure` is told when a table stops serving because its log could not be made durable.
    /// `limits` stop growth (writes that would cross one are refused); what the logs hold is
    /// always loaded, even above them.
    public convenience init(directory: String, clock: Clock = .live, limits: StorageLimits = StorageLimits(),
                            onFailure: @escaping @Sendable (StorageError) -> Void = { _ in }) throws {
        try self.init(directory: directory, clock: clock, tuning: Tuning(), limits: limits, onFailure: onFailure)
    }

    init(directory: String, clock: Clock, tuning: Tuning, limits: StorageLimits = StorageLimits(),
         io: any LogFileIO = SystemLogFileIO(), onFailure: @escaping @Sendable (StorageError) -> Void = { _ in }) throws {
        self.directory = directory
        self.clock = clock
        self.tuning = tuning
        self.io = io
        self.onFailure = onFailure
        quota = StorageQuota(limits: limits)
        openLogs = OpenLogs(capacity: tuning.openLogs)
        let fs = LocalFileSystem()
        let existed = fs.isDirectory(directory)
        do {
            try fs.createDirectory(directory)
        } catch {
            throw StorageError(.io, path: directory, "cannot create the data directory: \(error.reason)")
        }
        if !existed { try TableLogFile.syncDirectory(directory.parentPath) }
        let storeLock = try Self.acquireLock(directory, tuning)
        let handles = try Self.recoverTables(directory, fs, io: io, quota: quota, openLogs: openLogs, onFailure: onFailure)
        counter = StorageVersionCounter(last: handles.values.map { $0.state.withLock { $0.memory.lastVersion } }.max() ?? 0)
        tables = ReadWriteLocked(handles)
        lock = Mutex(storeLock)
    }

    /// Configured spellings of all tables, sorted (the name never changes, so no durability wait).
    public func tableNames() -> [String] {
        let handles = tables.withLock { Array($0.values) }
        return handles.map { $0.state.withReadLock { $0.memory.schema.name } }.sorted()
    }

    /// The table's schema; the name is matched ignoring case. For what never changes (the
    /// configured name, soft delete) and for a quick existence check: rows are rendered only with
    /// the schema of their own snapshot (`read`), since this one may be older or newer than them.
    /// Throws `.unavailable` when the table stopped serving after a failed fsync.
    public func schema(_ table: String) throws(StorageError) -> TableSchema? {
        var ticket = DurabilityTicket.durable
        let schema = schema(table, ticket: &ticket)
        try ticket.wait()
        return schema
    }

    /// `schema(_:)` without the wait: adds to `ticket` what must be durable before it is shown.
    func schema(_ table: String, ticket: inout DurabilityTicket) -> TableSchema? {
        guard let (schema, needs) = handle(table)?.schema() else { return nil }
        ticket.merge(needs)
        return schema
    }

    // MARK: - Reads (any thread; each call sees one consistent, durable state)

    /// Runs `body` on the table as of one moment (see `TableSnapshot`): everything one answer shows
    /// must come from one call, so that its rows and its schema agree. Holds the table's read lock
    /// while `body` runs, so `body` must be short (O(answer)) and must not call the storage; returns
    /// once what it saw is durable. Nil when there is no such table. Throws `.unavailable` when what
    /// it saw cannot become durable (the table's fsync failed): the snapshot may hold a write that
    /// was answered 503, and must not be shown (issue 17).
    public func read<T: Sendable>(_ table: String, _ body: (TableSnapshot) -> T) throws(StorageError) -> T? {
        var ticket = DurabilityTicket.durable
        let value = read(table, ticket: &ticket, body)
        try ticket.wait()
        return value
    }

    /// `read(_:_:)` without the wait: adds to `ticket` what must be durable before the value is
    /// shown (the server's answers wait for it together, see `DurabilityTicket`).
    func read<T: Sendable>(_ table: String, ticket: inout DurabilityTicket, _ body: (TableSnapshot) -> T) -> T? {
        guard let (value, needs) = handle(table)?.read({ body(TableSnapshot($0)) }) else { return nil }
        ticket.merge(needs)
        return value
    }

    /// The row with this id ignoring case, soft-deleted rows included.
    public func row(_ table: String, id: String) throws(StorageError) -> StoredRow? {
        try read(table) { $0.row(id: id) } ?? nil
    }

    /// Every row, in (updatedAt, id) order. O(table): for general queries.
    public func allRows(_ table: String) throws(StorageError) -> [StoredRow] {
        try read(table) { $0.allRows() } ?? []
    }

    /// Rows with updatedAt > `after` (>= when `inclusive`; all rows when nil), ascending by
    /// (updatedAt, id by Unicode scalars), at most `limit`, optionally skipping deleted ones.
    /// Costs O(log n + returned rows + skipped deleted rows): this serves the incremental pull.
    public func rows(_ table: String, updatedAfter after: Int64?, inclusive: Bool, includeDeleted: Bool,
                     limit: Int) throws(StorageError) -> [StoredRow]
    {
        try scanRows(table, updatedAfter: after, inclusive: inclusive, includeDeleted: includeDeleted, limit: limit).rows
    }

    /// `rows(…)` plus how many index entries it examined (tests check it does not grow with the table).
    func scanRows(_ table: String, updatedAfter after: Int64?, inclusive: Bool, includeDeleted: Bool,
                  limit: Int) throws(StorageError) -> (rows: [StoredRow], examined: Int)
    {
        guard limit > 0 else { return ([], 0) }
        return try read(table) { snapshot in
            var rows: [StoredRow] = []
            let examined = snapshot.scan(updatedAfter: after, inclusive: inclusive) { row in
                if includeDeleted || !row.deleted { rows.append(row) }
                return rows.count < limit
            }
            return (rows, examined)
        } ?? ([], 0)
    }

    /// The first `limit` rows in `id asc` order (stored spelling, by Unicode scalars). Returned, not
    /// visited: a visitor would see rows before the durability wait that may refuse them.
    public func rowsInIDOrder(_ table: String, limit: Int = .max) throws(StorageError) -> [StoredRow] {
        try read(table) { snapshot in
            var rows: [StoredRow] = []
            guard limit > 0 else { return rows }
            snapshot.forEachRowInIDOrder { rows.append($0); return rows.count < limit }
            return rows
        } ?? []
    }

    public func rowCount(_ table: String, includeDeleted: Bool) throws(StorageError) -> Int {
        try read(table) { $0.rowCount(includeDeleted: includeDeleted) } ?? 0
    }

    // MARK: - Writes

    /// Runs `body` under the table's write lock and makes its changes durable (fsync) before
    /// returning. If `body` throws, nothing is written and the error is rethrown. Concurrent
    /// writers to one table are serialised and share fsyncs; different tables proceed in parallel.
    /// `body` reads through its `TableWrite`: calling this storage's methods for the same table
    /// from inside it would wait for the lock it holds.
    public func write<T>(_ table: String, _ body: (inout TableWrite) throws -> T) throws -> T {
        var ticket = DurabilityTicket.durable
        let result = try write(table, ticket: &ticket, body)
        try ticket.wait()
        return result
    }

    /// `write(_:_:)` without the wait: returns once the change is appended and applied, and adds
    /// to `ticket` what must be durable before it is acknowledged. The server's answers wait for
    /// it together (see `DurabilityTicket`): that is how pipelined writes share one fsync.
    func write<T>(_ table: String, ticket: inout DurabilityTicket, _ body: (inout TableWrite) throws -> T) throws -> T {
        guard let handle = handle(table) else {
            throw StorageError(.noSuchTable, "no table named '\(table)'")
        }
        let (result, needs) = try handle.write(counter: counter, clock: clock, tuning: tuning, body)
        ticket.merge(needs)
        return result
    }

    /// Makes every write durable, closes the logs and releases the directory lock. Later writes
    /// throw; reads still answer from memory. Also happens, less promptly, on deinit.
    public func close() {
        for handle in tables.withLock({ Array($0.values) }) { handle.close() }
        lock.withLock { held in
            held?.release()
            held = nil
        }
    }

    /// Rewrites the table's log to hold just its live rows (normally automatic, see `Tuning`).
    func compact(_ table: String) {
        handle(table)?.compactNow(counter: counter)
    }

    /// fsyncs run so far over all tables (group commit makes this far smaller than the writes).
    var syncCount: Int { tables.withLock { Array($0.values) }.reduce(0) { $0 + $1.commit.syncCount } }

    /// The table named `table` ignoring ASCII case (names outside the table name syntax match none).
    func handle(_ table: String) -> StoredTable? {
        guard Self.isValidTableName(table) else { return nil }
        return tables.withReadLock { $0[UTF8Text.lowercased(table)] }
    }

    /// Protocol §3.1.2: 1 to 128 characters of `[A-Za-z_][A-Za-z0-9_]*`.
    public static func isValidTableName(_ name: String) -> Bool { FieldName.isIdentifier(name) }
}
