import TodoBasics
import TodoModel

/// Looking for hand edits across the store, for the commands that may scan (`status`, `diff`,
/// `doctor`) and for `push`, which must not overwrite one. Interactive commands (`add`, `show`,
/// `edit`) only look at the item they touch (`history`).
extension Store {
    /// Every hand edit of a table (or of every table): reads every item file and operation.
    public func handEdits(table: String? = nil) throws(StoreError) -> [HandEdit] {
        var opsByItem: [String: [PendingOperation]] = [:]
        for op in try operations(table: table) { opsByItem["\(op.table)/\(ItemID.key(op.id))", default: []].append(op) }
        var edits: [HandEdit] = []
        for t in try tables() where table == nil || t == table {
            for file in try itemFiles(table: t) {
                edits += handEdits(file, operations: opsByItem["\(t)/\(ItemID.key(file.item.id))"] ?? [], table: t)
            }
        }
        return edits.sorted { $0.path < $1.path }
    }

    /// Hand edits of the items that have these operations, and of the operations' copies to send:
    /// what a push would overwrite with the server's copy, or send unlike the item. Reads one item
    /// file per item (on 8 threads for a long queue).
    public func handEdits(of operations: [PendingOperation]) throws(StoreError) -> [HandEdit] {
        var opsByPath: [String: [PendingOperation]] = [:]
        var tableOf: [String: String] = [:]
        for op in operations {
            let path = layout.item(op.table, op.id)
            opsByPath[path, default: []].append(op)
            tableOf[path] = op.table
        }
        let files = try readItemFiles(opsByPath.keys.sorted(), parallel: true)
        return files.flatMap { file in
            handEdits(file, operations: (opsByPath[file.path] ?? []).sorted { $0.sequence < $1.sequence }, table: tableOf[file.path] ?? "")
        }.sorted { $0.path < $1.path }
    }
}
