import Synchronization

/// Enforces `StorageLimits` on every write, before its record is appended, so a refused write
/// leaves neither memory nor log changed (issue 17).
///
/// The memory budget is shared by all tables, whose writers run in parallel: a write that grows the
/// total reserves its growth with one compare-and-swap, so two writers can never both take the last
/// bytes; a write that shrinks it gives the bytes back once applied. Row counts and row sizes are
/// checked under the table's lock, which serialises that table's writers.
final class StorageQuota: Sendable {
    let limits: StorageLimits
    /// Estimated memory of every row held (`RowFootprint.memoryBytes`), reserved writes included.
    private let used: Atomic<Int>

    init(limits: StorageLimits) {
        self.limits = limits
        self.used = Atomic(0)
    }

    /// Counts rows loaded from the logs at start, whatever the limits: data on disk is always served.
    func count(_ bytes: Int) {
        used.add(bytes, ordering: .relaxed)
    }

    var usedBytes: Int { used.load(ordering: .relaxed) }

    /// Checks a table creation against `maxTables` (`count`: tables there are now).
    func admitTable(_ name: String, count: Int) throws(StorageError) {
        guard count >= limits.maxTables else { return }
        throw StorageError(.quotaExceeded,
                           "the server holds \(count) table\(count == 1 ? "" : "s"), the most it allows (--max-tables \(limits.maxTables)), "
                               + "so the table '\(name)' was not created and nothing was written; use an existing "
                               + "table, or ask the server's operator to raise --max-tables")
    }

    /// Checks `change` against the limits as it would apply to `memory`, reserving the memory it
    /// adds. Returns the change in estimated memory, to pass to `applied` or `refund`.
    func admit(_ change: TableCommit, to memory: TableMemory) throws(StorageError) -> Int {
        var delta = 0
        var added = 0
        for row in change.puts {
            let old = memory.row(key: row.key)
            try admitRowSize(row, old: old)
            delta += RowFootprint.memoryBytes(row) - (old.map(RowFootprint.memoryBytes) ?? 0)
            if old == nil { added += 1 }
        }
        for id in change.removals {
            guard let old = memory.row(key: StoredRowKey(id: id)) else { continue }
            delta -= RowFootprint.memoryBytes(old)
            added -= 1
        }
        let rows = memory.rowCount(includeDeleted: true)
        if added > 0, rows + added > limits.maxRowsPerTable {
            throw StorageError(.quotaExceeded,
                               "the table '\(memory.schema.name)' holds \(rows) row\(rows == 1 ? "" : "s") (deleted ones included), the most "
                                   + "this server allows in one table (--max-rows-per-table \(limits.maxRowsPerTable)), "
                                   + "so nothing was written; ask the server's operator to raise --max-rows-per-table")
        }
        if delta > 0 { try reserve(delta) }
        return delta
    }

    /// Checks a row against `maxRowBytes`; a row that was larger already may keep its size or shrink.
    func admitRowSize(_ row: StoredRow, old: StoredRow?) throws(StorageError) {
        let size = RowFootprint.dataBytes(row)
        guard size > limits.maxRowBytes, size > old.map(RowFootprint.dataBytes) ?? 0 else { return }
        throw StorageError(.rowTooLarge,
                           "the row '\(row.id)' would hold \(ByteCount.text(size)), more than the "
                               + "\(ByteCount.text(limits.maxRowBytes)) this server allows in one row "
                               + "(--max-row-size), so nothing was written; store less in it, or split it")
    }

    /// The change was applied: a shrink gives its bytes back (a growth was reserved already).
    func applied(_ delta: Int) {
        if delta < 0 { used.add(delta, ordering: .relaxed) }
    }

    /// The change was not applied after all (its append failed): a reserved growth is given back.
    func refund(_ delta: Int) {
        if delta > 0 { used.subtract(delta, ordering: .relaxed) }
    }

    private func reserve(_ bytes: Int) throws(StorageError) {
        var current = used.load(ordering: .relaxed)
        while true {
            guard current + bytes <= limits.memoryBudget else {
                throw StorageError(.quotaExceeded,
                                   "the server's memory for rows is used up: its rows take about \(ByteCount.text(current)) "
                                       + "of the \(ByteCount.text(limits.memoryBudget)) it allows (--max-memory), and this "
                                       + "write needs \(ByteCount.text(bytes)) more, so nothing was written; delete rows, or "
                                       + "ask the server's operator to raise --max-memory")
            }
            let (exchanged, original) = used.compareExchange(expected: current, desired: current + bytes, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }
}
