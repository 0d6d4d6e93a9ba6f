import TodoModel
import TodoStore

/// Which items have pending ops or an open conflict, learned from two directory listings at
/// the start of a pull, so a row for an item with neither costs one file read, not a listing
/// of the queue. It loads the local state of a page's items before the page is planned, and
/// learns what the page left once it commits; it keeps nothing of a page after that.
struct LocalIndex {
    /// `<table>/<encoded id>` of every item with an op or a conflict on disk.
    private var withOperations = Set<String>()
    private var withConflict = Set<String>()
    /// The page loaded and not yet committed or discarded.
    private var loaded: [String: PulledRow.Local] = [:]
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
    var rememberedRows: Int { loaded.count }

    init(store: Store) throws(StoreError) {
        for name in try store.operationNames() { withOperations.insert("\(name.table)/\(name.encodedID)") }
        for name in try store.conflictNames() { withConflict.insert("\(name.table)/\(name.encodedID)") }
    }

    static func slot(_ table: String, _ id: String) -> String { "\(table)/\(IDEncoding.fileName(for: id))" }

    /// The state on disk of every item `rows` name (by slot, each read once): the one read step
    /// of a page, before `PullPlanner.page` decides. A failure forgets the page.
    mutating func load(_ rows: [Item], table: String, store: Store) throws(StoreError) -> [String: PulledRow.Local] {
        loaded = [:]
        do {
            for row in rows {
                let slot = Self.slot(table, row.id)
                if loaded[slot] == nil { loaded[slot] = try local(table: table, id: row.id, slot: slot, store: store) }
            }
        } catch {
            loaded = [:]
            throw error
        }
        return loaded
    }

    /// One item's state on disk.
    func local(table: String, id: String, store: Store) throws(StoreError) -> PulledRow.Local {
        try local(table: table, id: id, slot: Self.slot(table, id), store: store)
    }

    private func local(table: String, id: String, slot: String, store: Store) throws(StoreError) -> PulledRow.Local {
        let ops = withOperations.contains(slot) ? try store.operations(table: table, id: id) : []
        let conflict = withConflict.contains(slot) ? try store.conflict(table: table, id: id) : nil
        let exists = startedEmpty[table].map { $0.mayContain(IDEncoding.fileName(for: id)) } ?? true
        let item = exists ? try store.item(table: table, id: id) : nil
        return PulledRow.Local(table: table, item: item, operations: ops, conflict: conflict)
    }

    /// The page committed with the items in the states `after` gives (`PagePlan.after`).
    mutating func commit(_ after: [String: PulledRow.Local]) {
        for (slot, local) in after {
            let separator = slot.firstIndex(of: "/")!
            let table = String(slot[..<separator]), file = String(slot[slot.index(after: separator)...])
            if local.item != nil { startedEmpty[table]?.insert(file) }
            if local.operations.isEmpty { withOperations.remove(slot) } else { withOperations.insert(slot) }
            if local.conflict == nil { withConflict.remove(slot) } else { withConflict.insert(slot) }
        }
        loaded = [:]
    }

    /// The page was abandoned: forget it.
    mutating func discard() { loaded = [:] }
}
