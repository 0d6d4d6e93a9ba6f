import TodoBasics
import TodoModel

/// Looking for hand edits across the store, for the commands that may scan (`status`, `diff`,
/// `doctor`) and for `push`, which must not overwrite one. Interactive commands (`add`, `show`,
/// `edit`) only look at the item they touch (`history`).
extension Store {
    /// Every hand edit of a table (or of every table). Reads every operation, and the item files
    /// that changed since a scan last found them clean (`ItemStampCache`); then records the clean
    /// ones for the next scan.
    public func handEdits(table: String? = nil) throws(StoreError) -> [HandEdit] {
        var opsByPath: [String: [PendingOperation]] = [:]
        for op in try operations(table: table) { opsByPath[layout.item(op.table, op.id), default: []].append(op) }
        let cache = ItemStampCache.load(self)
        var seen = ItemStampCache()
        seen.entries.reserveCapacity(cache.entries.count)
        var added = false
        var toRead: [String] = []
        var tableOf: [String: String] = [:]
        var stamps: [String: FileStamp] = [:]
        for t in try tables() where table == nil || t == table {
            let dir = layout.itemsDirectory(t)
            let names = try list(dir).filter { $0.hasSuffix(".json") }
            for (name, stamp) in zip(names, fs.stamps(in: layout.absolute(dir), names: names)) {
                let path = dir + "/" + name
                // An item with operations is read anyway: its operations are checked against it.
                let stamp = opsByPath[path] == nil ? stamp : nil
                if let stamp, cache.entries[path] == stamp {
                    seen.entries[path] = stamp
                    continue
                }
                toRead.append(path)
                tableOf[path] = t
                stamps[path] = stamp
            }
        }
        var edits: [HandEdit] = []
        for file in try readItemFiles(toRead, parallel: true) {
            let ops = (opsByPath[file.path] ?? []).sorted { $0.sequence < $1.sequence }
            let found = handEdits(file, operations: ops, table: tableOf[file.path] ?? "")
            if found.isEmpty, let stamp = stamps[file.path] {
                seen.entries[file.path] = stamp
                added = true
            }
            edits += found
        }
        if let table {
            let others = layout.itemsDirectory(table) + "/"
            for (path, stamp) in cache.entries where !path.hasPrefix(others) { seen.entries[path] = stamp }
        }
        // Unchanged when nothing was added and every entry was met again.
        if added || seen.entries.count != cache.entries.count { seen.save(self) }
        return edits.sorted { $0.path < $1.path }
    }

    /// Hand edits of the item files with no pending operation (`hasOperations` says which have
    /// one, by table and encoded id), sorted by path: for `diff`, which finds the others with
    /// their operations. No operation is read, and item files are walked, a batch at a time: each
    /// is read once, unless the stamp cache `status` keeps (`ItemStampCache`) says it is clean.
    /// The cache is a table in memory (about 200 bytes an item), so it is used only while its
    /// file is under `cacheLimit`: past that (some 80,000 items) every file is read, in flat memory.
    public func handEditsWithoutOperations(table: String?, hasOperations: (String, String) -> Bool) throws(StoreError) -> [HandEdit] {
        let cacheFile = fs.stamp(layout.absolute(StoreLayout.itemStampsFile))
        let cache = (cacheFile?.size ?? 0) <= Self.cacheLimit ? ItemStampCache.load(self) : ItemStampCache()
        var edits: [HandEdit] = []
        for t in try tables() where table == nil || t == table {
            let dir = layout.itemsDirectory(t)
            let clean = { (name: String) -> Bool in
                guard let known = cache.entries[dir + "/" + name] else { return false }
                return self.fs.stamp(self.layout.absolute(dir + "/" + name)) == known
            }
            try forEachItemFile(table: t, include: { !hasOperations(t, String($0.dropLast(5))) && !clean($0) }) { file throws(StoreError) in
                edits += handEdits(file, operations: [], table: t)
            }
        }
        return edits.sorted { $0.path < $1.path }
    }

    static let cacheLimit: Int64 = 8 << 20

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
