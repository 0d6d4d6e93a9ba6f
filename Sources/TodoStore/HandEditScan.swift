import TodoBasics
import TodoModel

/// Looking for hand edits across the store, for the commands that may scan (`status`, `diff`,
/// `doctor`) and for `push`, which must not overwrite one. Interactive commands (`add`, `show`,
/// `edit`) only look at the item they touch (`history`).
extension Store {
    /// Every hand edit of a table (or of every table). Reads every operation, an item at a time
    /// with its item file (`QueueByItem`), and the other item files that changed since a scan
    /// last found them clean (`ItemStampCache`); then records the clean ones for the next scan.
    /// The items folders are walked 2,048 names at a time, so memory holds a batch of operations
    /// and item files, and 16 bytes per item, never the queue nor the listing. `eachName` and
    /// `eachOperation` see every pending name (folder order) and operation read (item order) of
    /// the table, for `status`, which shows the queue without reading it twice.
    public func handEdits(table: String? = nil,
                          eachName: (OperationFileName) throws(StoreError) -> Void = { _ in },
                          eachOperation: (PendingOperation) throws(StoreError) -> Void = { _ in }) throws(StoreError) -> [HandEdit] {
        let queue = try QueueByItem(self, table: table, eachName: eachName)
        var edits = try queue.handEdits(self, eachOperation: eachOperation)
        let cache = ItemStampCache.load(self)
        var scan = ItemStampCache.beginScan(self)
        var added = false
        for t in try tables() where table == nil || t == table {
            let dir = layout.itemsDirectory(t)
            var names: [String] = []
            var failure: StoreError?
            func drain() -> Bool {
                defer { names.removeAll(keepingCapacity: true) }
                var toRead: [String] = []
                var stamps: [String: FileStamp] = [:]
                for (name, stamp) in zip(names, fs.stamps(in: layout.absolute(dir), names: names)) {
                    let path = dir + "/" + name
                    if let stamp, cache.isClean(path, stamp) {
                        scan.add(path, stamp)
                        continue
                    }
                    toRead.append(path)
                    stamps[path] = stamp
                }
                do throws(StoreError) {
                    for file in try readItemFiles(toRead, parallel: true) {
                        let found = handEdits(file, operations: [], table: t)
                        if found.isEmpty, let stamp = stamps[file.path] {
                            scan.add(file.path, stamp)
                            added = true
                        }
                        edits += found
                    }
                } catch {
                    failure = error
                    return false
                }
                return true
            }
            do {
                _ = try fs.scanDirectory(layout.absolute(dir)) { name in
                    // An item with operations was checked against them, with them (`QueueByItem`).
                    guard name.hasSuffix(".json"), !queue.items.contains(t + "/" + String(name.dropLast(5))) else { return true }
                    names.append(name)
                    return names.count < 2048 || drain()
                }
            } catch {
                ItemStampCache.finish(self, scan, keeping: nil)
                throw .io(error)
            }
            if failure == nil, !names.isEmpty { _ = drain() }
            if let failure {
                ItemStampCache.finish(self, scan, keeping: nil)
                throw failure
            }
        }
        // Rewritten unless no file read was found clean and every entry was met again.
        // A scan of one table keeps the other entries (digests do not say their table; an entry
        // of a file gone or changed is never met again, and the next full scan drops it).
        let unchanged = !added && scan.count == cache.count
        ItemStampCache.finish(self, scan, keeping: unchanged ? nil : table == nil ? [] : cache.entries)
        return edits.sorted { $0.path < $1.path }
    }

    /// Hand edits of the item files with no pending operation (`hasOperations` says which have
    /// one, by table and encoded id), sorted by path: for `diff`, which finds the others with
    /// their operations. No operation is read, and item files are walked, a batch at a time: each
    /// is read once, unless the stamp cache `status` keeps (`ItemStampCache`) says it is clean:
    /// 16 bytes an item in memory, so it is used only while its file is under `cacheLimit`
    /// (some 4,000,000 items); past that every file is read, in flat memory.
    public func handEditsWithoutOperations(table: String?, hasOperations: (String, String) -> Bool) throws(StoreError) -> [HandEdit] {
        let cacheFile = fs.stamp(layout.absolute(StoreLayout.itemStampsFile))
        let cache = (cacheFile?.size ?? 0) <= Self.cacheLimit ? ItemStampCache.load(self) : ItemStampCache()
        var edits: [HandEdit] = []
        for t in try tables() where table == nil || t == table {
            let dir = layout.itemsDirectory(t)
            let clean = { (name: String) -> Bool in
                guard cache.count > 0, let stamp = self.fs.stamp(self.layout.absolute(dir + "/" + name)) else { return false }
                return cache.isClean(dir + "/" + name, stamp)
            }
            try forEachItemFile(table: t, include: { !hasOperations(t, String($0.dropLast(5))) && !clean($0) }) { file throws(StoreError) in
                edits += handEdits(file, operations: [], table: t)
            }
        }
        return edits.sorted { $0.path < $1.path }
    }

    static let cacheLimit: Int64 = 64 << 20

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
