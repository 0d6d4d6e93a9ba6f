/// The in-memory image of one table: what replaying its log produces, and what reads are served from.
///
/// Two indexes over the same rows: a dictionary by id key for reads by id (§4.2.4), and
/// `UpdatedAtIndex` for the incremental pull (§8.12). Rows are values, so both hold the same
/// copy-on-write storage and a row costs one copy of its fields. No I/O and no locking here: the
/// owner (`StoredTable`) touches it only under the table's lock, hence `@unchecked Sendable`.
final class TableMemory: @unchecked Sendable {
    private(set) var schema: TableSchema
    private(set) var rows: [StoredRowKey: StoredRow] = [:]
    private(set) var order = UpdatedAtIndex()
    private(set) var idOrder = IDOrderIndex()
    private(set) var deletedCount = 0
    /// Estimated resident memory of the rows (`RowFootprint.memoryBytes`): what the memory budget
    /// counts (issue 17).
    private(set) var memoryBytes = 0
    /// The largest updatedAt ever assigned in this table, hard deletes included (§4.6.1).
    private(set) var lastUpdatedAt: Int64
    /// The largest version this table's log mentions; the server-wide counter starts above the
    /// largest over all tables.
    private(set) var lastVersion: UInt64
    /// `autoIncrement` tables: the largest id ever put, deleted rows included (see `TableLogHeader`).
    private(set) var lastID: UInt64

    init(schema: TableSchema, lastVersion: UInt64, lastUpdatedAt: Int64, lastID: UInt64 = 0) {
        self.schema = schema
        self.lastVersion = lastVersion
        self.lastUpdatedAt = lastUpdatedAt
        self.lastID = lastID
    }

    func row(key: StoredRowKey) -> StoredRow? { rows[key] }

    func rowCount(includeDeleted: Bool) -> Int {
        includeDeleted ? rows.count : rows.count - deletedCount
    }

    /// Inserts or replaces the row with the same id key.
    func put(_ row: StoredRow) {
        let key = row.key
        memoryBytes += RowFootprint.memoryBytes(row)
        if let old = rows.updateValue(row, forKey: key) {
            memoryBytes -= RowFootprint.memoryBytes(old)
            order.remove(old)
            if old.deleted { deletedCount -= 1 }
            if !UTF8Bytes.equal(old.id, row.id) {
                idOrder.remove(old.id)
                idOrder.insert(row.id, key: key)
            }
        } else {
            idOrder.insert(row.id, key: key)
        }
        order.insert(row)
        if row.deleted { deletedCount += 1 }
        noteStamp(version: row.version, updatedAt: row.updatedAt)
        if schema.idType == .autoIncrement, let n = IntegerID.value(ofStored: row.id) { lastID = max(lastID, n) }
    }

    /// Removes the row with this id key, if any.
    func remove(key: StoredRowKey) {
        guard let old = rows.removeValue(forKey: key) else { return }
        memoryBytes -= RowFootprint.memoryBytes(old)
        order.remove(old)
        idOrder.remove(old.id)
        if old.deleted { deletedCount -= 1 }
    }

    func setColumnType(_ name: String, _ type: ColumnType?) {
        schema.columns[name] = .some(type)
    }

    /// Remembers a stamp handed out in this table, so neither value is handed out again.
    func noteStamp(version: UInt64, updatedAt: Int64) {
        lastVersion = max(lastVersion, version)
        lastUpdatedAt = max(lastUpdatedAt, updatedAt)
    }

    /// Applies one decoded log record (replay, and live writes after their bytes are appended).
    func apply(_ commit: TableCommit) {
        if let stamp = commit.stamp { noteStamp(version: stamp.version, updatedAt: stamp.updatedAt) }
        for (name, type) in commit.columns { setColumnType(name, type) }
        for row in commit.puts { put(row) }
        for id in commit.removals { remove(key: StoredRowKey(id: id)) }
    }
}
