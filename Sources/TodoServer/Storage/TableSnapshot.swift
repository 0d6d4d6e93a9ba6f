/// A table as of one moment: its schema and its rows, after the same committed writes.
///
/// Why: an answer built from two reads of a table (its schema, then its rows) can pair a row with
/// the schema from before the write that gave it a column, and so render half of that write
/// (issue 22). Everything one answer shows comes from one snapshot instead, handed out by
/// `TableStorage.read` under one hold of the table's read lock; every row in it was put by a whole
/// committed write, and its schema lists every column any of its rows has (`TableMemory.apply`
/// adds a write's columns before its rows).
///
/// A view, not a copy: it is valid only inside the `read` call that hands it out, which is why it
/// is not `Sendable` (so `read` cannot return it) and why its visitors must not call the storage.
/// What it returns (rows, the schema) are values and stay valid.
public struct TableSnapshot {
    private let memory: TableMemory

    init(_ memory: TableMemory) { self.memory = memory }

    /// The schema the rows of this snapshot were written under.
    public var schema: TableSchema { memory.schema }

    /// The row with this id ignoring case, soft-deleted rows included.
    public func row(id: String) -> StoredRow? { memory.row(key: StoredRowKey(id: id)) }

    public func rowCount(includeDeleted: Bool) -> Int { memory.rowCount(includeDeleted: includeDeleted) }

    /// The counters the next write stamps from: the last version and updatedAt given out (rows
    /// removed since included) and the last integer id. A copy of the table elsewhere keeps them,
    /// so that no version or ETag is ever given out twice (`todo-server migrate`).
    var counters: (lastVersion: UInt64, lastUpdatedAt: Int64, lastID: UInt64) {
        (memory.lastVersion, memory.lastUpdatedAt, memory.lastID)
    }

    /// Every row, in (updatedAt, id) order. O(table): for general queries.
    public func allRows() -> [StoredRow] { memory.order.allRows() }

    /// Visits rows in (updatedAt, id by Unicode scalars) order, starting with the first whose
    /// updatedAt is > `after` (>= when `inclusive`; every row when nil), until `visit` returns false.
    /// Returns how many index entries it visited: O(log n + visited), the incremental pull's cost
    /// (protocol §8.12).
    @discardableResult
    public func scan(updatedAfter after: Int64?, inclusive: Bool, _ visit: (StoredRow) -> Bool) -> Int {
        memory.order.scan(after: after, inclusive: inclusive, visit)
    }

    /// Visits rows in `id asc` order (stored spelling, by Unicode scalars) until `visit` returns false.
    public func forEachRowInIDOrder(_ visit: (StoredRow) -> Bool) {
        memory.idOrder.forEach { _, key in
            guard let row = memory.row(key: key) else { return true }
            return visit(row)
        }
    }
}

@available(*, unavailable, message: "a TableSnapshot is valid only inside the TableStorage.read call that hands it out")
extension TableSnapshot: Sendable {}
