import TodoBasics
import TodoModel

/// Looking for hand edits across the store, for the commands that may scan (`status`, `diff`,
/// `doctor`) and for `push`, which must not overwrite one. Interactive commands (`add`, `show`,
/// `edit`) only look at the item they touch (`history`).
extension Store {
    /// Every hand edit of a table (or of every table). Reads every operation, an item at a time
    /// with its item file (`QueueByItem`), and the other item files that changed since a scan
    /// last found them clean (`ItemStampScan`, which records the clean ones for the next scan).
    /// Memory holds a batch of operations and item files, a sort's budget of names and a page
    /// of the stamp cache, never the queue, the listing nor the cache. `eachName` and
    /// `eachOperation` see every pending name (folder order) and operation read (item order) of
    /// the table, for `status`, which shows the queue without reading it twice.
    public func handEdits(table: String? = nil,
                          eachName: (OperationFileName) throws(StoreError) -> Void = { _ in },
                          eachOperation: (PendingOperation) throws(StoreError) -> Void = { _ in }) throws(StoreError) -> [HandEdit] {
        let queue = try QueueByItem(self, table: table, eachName: eachName)
        var edits = try queue.handEdits(self, eachOperation: eachOperation)
        let tables = try self.tables().filter { table == nil || $0 == table }
        // An item with operations was checked against them, with them (`QueueByItem`).
        edits += try ItemStampScan(store: self, records: true).handEdits(tables: tables, include: { t, name in
            !queue.items.contains(t + "/" + String(name.dropLast(5)))
        }, onlyTable: table != nil)
        return edits.sorted { $0.path < $1.path }
    }

    /// Hand edits of the item files with no pending operation (`hasOperations` says which have
    /// one, by table and encoded id), sorted by path: for `diff`, which finds the others with
    /// their operations. No operation is read; each item file is read once, unless the stamp
    /// cache `status` keeps says it is clean (`ItemStampScan`, which holds a page of it).
    public func handEditsWithoutOperations(table: String?, hasOperations: (String, String) -> Bool) throws(StoreError) -> [HandEdit] {
        let tables = try self.tables().filter { table == nil || $0 == table }
        let edits = try ItemStampScan(store: self, records: false).handEdits(tables: tables, include: { t, name in
            !hasOperations(t, String(name.dropLast(5)))
        }, onlyTable: table != nil)
        return edits.sorted { $0.path < $1.path }
    }

    /// Hand edits of the items that have these operations, and of the operations' copies to send:
    /// what a push would overwrite with the server's copy, or send unlike the item. Reads one item
    /// file per item (on 8 threads for a long queue).
    public func handEdits(of operations: [PendingOperation]) throws(StoreError) -> [HandEdit] {
        // One dictionary, sized up front: each lookup hashes the whole path, and a push of
        // 10,000 asks this of every op.
        var byPath: [String: (table: String, ops: [PendingOperation])] = [:]
        byPath.reserveCapacity(operations.count)
        for op in operations {
            byPath[layout.item(op.table, op.id), default: (op.table, [])].ops.append(op)
        }
        let files = try readItemFiles(byPath.keys.sorted(), parallel: true)
        return files.flatMap { file in
            let entry = byPath[file.path]
            return handEdits(file, operations: (entry?.ops ?? []).sorted { $0.sequence < $1.sequence }, table: entry?.table ?? "")
        }.sorted { $0.path < $1.path }
    }
}
