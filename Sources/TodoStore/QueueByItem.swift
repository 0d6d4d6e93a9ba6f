import TodoBasics
import TodoModel

/// The queue an item at a time, in bounded memory, for the hand edits of the items with pending
/// operations (`Store.handEdits(table:)`): `status` held every operation of the queue at once to
/// check them against their items (1,972 MB at a million pending inserts, issue 21).
///
/// The operations folder is walked once without holding its listing: each name goes into an
/// external sort by item and sequence (`RunSorter`), and its item into a set of hashes
/// (`ItemKeySet`), so that the walk of the item files leaves those items to this one. The merge
/// gives an item's names together; items are read a batch at a time (`Store.itemBatchSize`
/// operations, on 8 threads), each operation and item file once.
struct QueueByItem {
    let byItem: RunSorter
    /// `<table>/<encoded id>` of every item with a pending operation (of the table walked).
    var items = ItemKeySet()

    /// Walks the folder; `eachName` sees every name of the table (or of every table) in folder
    /// order. A name that is no operation file name is refused, as a listing refuses it.
    init(_ store: Store, table: String?, eachName: (OperationFileName) throws(StoreError) -> Void) throws(StoreError) {
        byItem = RunSorter(budget: store.pendingIndexSortBudget, folders: store.scratchFolders(environment: [:]))
        let sorter = byItem
        var keys = ItemKeySet()
        try store.forEachOperationName { name throws(StoreError) in
            guard table == nil || name.table == table else { return }
            try eachName(name)
            let item = PendingIndex.itemKey(name)
            keys.insert(item)
            do throws(FileSystemError) {
                try sorter.add(key: Array(item.utf8) + [0] + RunSorter.numberKey(name.sequence), payload: Array(name.name.utf8))
            } catch { throw .io(error) }
        }
        keys.finish()
        items = keys
    }

    /// The hand edits of the items with operations (unsorted), each operation read given to
    /// `eachOperation` (in the order of items, not of the queue).
    func handEdits(_ store: Store, eachOperation: (PendingOperation) throws(StoreError) -> Void) throws(StoreError) -> [HandEdit] {
        let tables = Set(try store.tables())
        var edits: [HandEdit] = []
        var batch: [OperationFileName] = []
        var failure: StoreError?
        func drain() throws(StoreError) {
            defer { batch.removeAll(keepingCapacity: true) }
            let ops = try store.operations(named: batch)
            store.peakOperationsHeld = max(store.peakOperationsHeld, ops.count)
            var byPath: [String: [PendingOperation]] = [:]
            for op in ops {
                try eachOperation(op)
                byPath[store.layout.item(op.table, op.id), default: []].append(op)
            }
            // The item files of tables the store has (an operation of another has none to read).
            let paths = byPath.filter { tables.contains($0.value[0].table) }.keys.sorted()
            for file in try store.readItemFiles(paths, parallel: true) {
                guard let ops = byPath[file.path], let table = ops.first?.table else { continue }
                edits += store.handEdits(file, operations: ops.sorted { $0.sequence < $1.sequence }, table: table)
            }
        }
        var item: ArraySlice<UInt8>?
        do {
            try byItem.sorted { record in
                let key = record.key.dropLast(9)
                // A batch ends between items: an item's operations are checked together.
                if key != item, batch.count >= store.itemBatchSize {
                    do throws(StoreError) { try drain() } catch {
                        failure = error
                        return false
                    }
                }
                item = key
                if let name = OperationFileName(parsing: String(decoding: record.payload, as: UTF8.self)) { batch.append(name) }
                return true
            }
        } catch { throw .io(error) }
        if let failure { throw failure }
        try drain()
        var figures = PendingIndexFigures()
        figures.names = byItem.peakRecords
        figures.runs = byItem.runsWritten
        store.pendingIndexFigures.merge(figures)
        return edits
    }
}
