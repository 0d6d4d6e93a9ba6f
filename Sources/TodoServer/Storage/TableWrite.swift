import Synchronization
import TodoBasics
import TodoModel

/// The changes of one `TableStorage.write` call, staged until the body returns.
///
/// Reads see the table as it was plus this write's own changes. Nothing reaches the table or the
/// log unless the body returns: then all of it is appended as one record and applied, so a write
/// is atomic however many rows it touches.
public struct TableWrite {
    private let memory: any TableWriteBase
    private let counter: any VersionSource
    private let clock: Clock
    private var working: TableSchema
    /// Staged rows by id key; `.some(nil)` means removed.
    private var pending: [StoredRowKey: StoredRow?] = [:]
    private var columnChanges: [String: ColumnType?] = [:]
    private var stamp: TableStamp?
    private var lastUpdatedAt: Int64
    private var lastID: UInt64

    init(memory: any TableWriteBase, counter: any VersionSource, clock: Clock) {
        self.memory = memory
        self.counter = counter
        self.clock = clock
        working = memory.schema
        lastUpdatedAt = memory.lastUpdatedAt
        lastID = memory.lastID
    }

    /// The table's schema including this write's column changes.
    public var schema: TableSchema { working }

    /// The row with this id (ignoring case), soft-deleted or not, as this write left it.
    public func row(id: String) -> StoredRow? {
        let key = StoredRowKey(id: id)
        if let staged = pending[key] { return staged }
        return memory.row(key: key)
    }

    /// A fresh (version, updatedAt) pair (protocol §4.4.2, §4.6.1).
    ///
    /// The version comes from the one server-wide counter: +1 per call, never reused (the log
    /// records it even when no row keeps it). updatedAt is max(now, the table's last updatedAt + 1),
    /// so it is strictly increasing within the table even when the clock steps back or writes share
    /// a millisecond: a client holding a pull cursor can never miss a later write.
    public mutating func nextStamp() -> (version: UInt64, updatedAt: Int64) {
        let version = counter.next()
        let updatedAt = max(clock.nowMilliseconds(), lastUpdatedAt + 1)
        lastUpdatedAt = updatedAt
        stamp = TableStamp(version: version, updatedAt: updatedAt)
        return (version, updatedAt)
    }

    /// An `autoIncrement` table's next id, in stored form (`IntegerID`): one above every id it ever
    /// held, so a deleted row's id is never handed out again. Nil when the ids are used up.
    public mutating func nextID() -> String? {
        guard lastID < IntegerID.maximum else { return nil }
        lastID += 1
        return IntegerID.stored(lastID)
    }

    /// Inserts or replaces the row with the same id ignoring case; the row is stored as given.
    ///
    /// Columns the schema does not know yet are added, typed by their value (untyped while null),
    /// and an untyped column takes the type of its first non-null value, so the schema always lists
    /// every column ever set (§4.7.4). Checking a value against an existing type is the caller's job.
    public mutating func put(_ row: StoredRow) {
        pending[row.key] = .some(row)
        lastUpdatedAt = max(lastUpdatedAt, row.updatedAt)
        for (name, value) in row.columns {
            switch working.columns[name] {
            case nil: setColumnType(name, ColumnType(of: value))
            case .some(nil): if let type = ColumnType(of: value) { setColumnType(name, type) }
            case .some(.some): break
            }
        }
    }

    /// Hard delete. Takes a stamp when this write has none yet, so a hard delete advances the
    /// version counter like every other write. No-op when there is no such row.
    public mutating func remove(id: String) {
        guard row(id: id) != nil else { return }
        if stamp == nil { _ = nextStamp() }
        pending[StoredRowKey(id: id)] = .some(nil)
    }

    public mutating func setColumnType(_ name: String, _ type: ColumnType?) {
        working.columns[name] = .some(type)
        columnChanges[name] = .some(type)
    }

    /// The record of this write: its final effect, in a fixed order. Empty when nothing changed.
    func makeCommit() -> TableCommit {
        var commit = TableCommit(stamp: stamp)
        for name in columnChanges.keys.sorted() {
            let type = columnChanges[name]!
            if memory.schema.columns[name] != .some(type) { commit.columns.append((name, type)) }
        }
        // The staged rows sorted with their keys: sorting the keys alone meant looking each up again.
        for (key, staged) in pending.sorted(by: { UTF8Bytes.less($0.key.lowercased, $1.key.lowercased) }) {
            if let row = staged {
                commit.puts.append(row)
            } else if let old = memory.row(key: key) {
                commit.removals.append(old.id)
            }
        }
        return commit
    }
}

/// What a write starts from: the table as committed, before this write. The embedded store's
/// `TableMemory`, or a database backend's view of the table inside its transaction.
protocol TableWriteBase: AnyObject {
    var schema: TableSchema { get }
    /// The largest updatedAt ever assigned in the table (stamps go above it).
    var lastUpdatedAt: Int64 { get }
    /// `autoIncrement` tables: the largest id ever handed out.
    var lastID: UInt64 { get }
    func row(key: StoredRowKey) -> StoredRow?
}

/// Where a write's versions come from (§4.4.2).
protocol VersionSource: AnyObject {
    func next() -> UInt64
}

extension TableMemory: TableWriteBase {}

/// The server-wide version counter: the last version handed out (§4.4.2).
final class StorageVersionCounter: Sendable, VersionSource {
    private let last: Atomic<UInt64>

    init(last: UInt64) { self.last = Atomic(last) }

    func next() -> UInt64 { last.add(1, ordering: .relaxed).newValue }
    var current: UInt64 { last.load(ordering: .relaxed) }
}
