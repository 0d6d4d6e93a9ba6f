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
    /// Tables whose items folder held no item when a pull from the beginning met them (a clone, or
    /// after a purge): their items are the ones this pull wrote, so a row of an item it did not
    /// write costs no failed open. Other pulls open the item's file: their cost follows the rows
    /// changed, not the table's size.
    private var startedEmpty: [String: WrittenItems] = [:]

    /// The next rows of `table` come from a pull without a token: most may be new.
    mutating func expectMostlyNewRows(in table: String, store: Store) throws(StoreError) {
        guard startedEmpty[table] == nil, !(try store.holdsEntries(store.layout.itemsDirectory(table))) else { return }
        startedEmpty[table] = WrittenItems()
    }

    /// Rows kept after their page committed (issue 21 item 5: none, whatever the table's size).
    var rememberedRows: Int { page.count }

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
        let exists = startedEmpty[table].map { $0.mayContain(IDEncoding.fileName(for: id)) } ?? true
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
            let table = String(slot[..<separator]), file = String(slot[slot.index(after: separator)...])
            if local.item != nil { startedEmpty[table]?.insert(file) }
            if local.operations.isEmpty { withOperations.remove(slot) } else { withOperations.insert(slot) }
            if local.conflict == nil { withConflict.remove(slot) } else { withConflict.insert(slot) }
        }
        page = [:]
    }

    /// The page was abandoned: forget its staged state.
    mutating func discard() { page = [:] }
}
