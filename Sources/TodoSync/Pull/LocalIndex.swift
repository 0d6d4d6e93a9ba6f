import TodoModel
import TodoStore

/// Which items have pending ops or an open conflict, learned from two directory listings at
/// the start of a pull, so a row for an item with neither costs one file read, not a listing
/// of the queue. Rows applied in the page being built are answered from the page's own state.
struct LocalIndex {
    /// `<table>/<encoded id>` of every item with an op or a conflict on disk.
    private var withOperations = Set<String>()
    private var withConflict = Set<String>()
    /// The state each touched item will have once the current page commits.
    private var page: [String: PulledRow.Local] = [:]
    /// Item file names per table, listed once for pulls that start from the beginning (a clone
    /// is all new rows, and a failed open per row costs more than one listing). Incremental pulls
    /// never list: their cost must follow the rows changed, not the table's size.
    private var itemFiles: [String: Set<String>] = [:]
    private var listTables = Set<String>()

    /// The next rows of `table` come from a pull without a token: list its items once.
    mutating func expectMostlyNewRows(in table: String) { listTables.insert(table) }

    init(store: Store) throws(StoreError) {
        for name in try store.operationNames() { withOperations.insert("\(name.table)/\(name.encodedID)") }
        for name in try store.conflictNames() { withConflict.insert("\(name.table)/\(name.encodedID)") }
    }

    static func slot(_ table: String, _ id: String) -> String { "\(table)/\(IDEncoding.fileName(for: id))" }

    mutating func local(table: String, id: String, store: Store) throws(StoreError) -> PulledRow.Local {
        let slot = Self.slot(table, id)
        if let staged = page[slot] { return staged }
        let ops = withOperations.contains(slot) ? try store.operations(table: table, id: id) : []
        let conflict = withConflict.contains(slot) ? try store.conflict(table: table, id: id) : nil
        if listTables.contains(table), itemFiles[table] == nil {
            itemFiles[table] = Set(try store.list(store.layout.itemsDirectory(table)))
        }
        let exists = itemFiles[table].map { $0.contains(IDEncoding.fileName(for: id) + ".json") } ?? true
        let item = exists ? try store.item(table: table, id: id) : nil
        return PulledRow.Local(table: table, item: item, operations: ops, conflict: conflict)
    }

    /// Records what a row's plan leaves behind, for later rows of the same page.
    mutating func stage(_ table: String, _ id: String, plan: PulledRow.Plan, local: PulledRow.Local) {
        var next = local
        if let item = plan.item { next.item = item }
        let removed = Set(plan.removals.map(\.sequence))
        let written = Set(plan.writes.map(\.sequence))
        next.operations = (local.operations.filter { !removed.contains($0.sequence) && !written.contains($0.sequence) } + plan.writes)
            .sorted { $0.sequence < $1.sequence }
        if let conflict = plan.conflict { next.conflict = conflict }
        page[Self.slot(table, id)] = next
    }

    /// The page committed: its state is now on disk.
    mutating func commit() {
        for (slot, local) in page {
            let separator = slot.firstIndex(of: "/")!
            let table = String(slot[..<separator]), file = String(slot[slot.index(after: separator)...]) + ".json"
            if local.item == nil { itemFiles[table]?.remove(file) } else { itemFiles[table]?.insert(file) }
            if local.operations.isEmpty { withOperations.remove(slot) } else { withOperations.insert(slot) }
            if local.conflict == nil { withConflict.remove(slot) } else { withConflict.insert(slot) }
        }
        page = [:]
    }

    /// The page was abandoned: forget its staged state.
    mutating func discard() { page = [:] }
}
