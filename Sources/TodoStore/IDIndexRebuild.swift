import TodoBasics
import TodoModel

/// Rebuilding the index of ids (`IDIndex`) from the item files and the numbers files in bounded
/// memory: a million ids (36 MB of keys, more as Swift strings and a dictionary of numbers) would
/// not fit the 64 MB a command may use (issue 21). Both folders are streamed into one external
/// sort (`RunSorter`) keyed by id; its merge meets each id's records side by side and writes the
/// buckets one after the other.
extension IDIndex {
    /// What the last rebuild held in memory at most, and the runs it spilled (for the tests).
    struct RebuildFigures: Equatable {
        var peakRecords: Int
        var runs: Int
        var keys: Int
    }

    /// Rewrites a table's index from its folders, stamped before they were read. The old stamp
    /// goes first (durably), so a rebuild cut short is never trusted; the buckets are durable
    /// (one syncfs) before the new stamp is renamed into place. Only for a writer; false when it
    /// could not (the index stays stale, and the items folder is listed until a rebuild succeeds).
    @discardableResult
    static func rebuild(_ table: String, _ store: Store) -> Bool {
        store.idIndexMemo[table] = nil
        guard store.isWritable, let stamps = currentStamps(table, in: store) else { return false }
        let fs = store.fs
        let dir = store.layout.absolute(folder(table))
        do {
            try CacheFolder.prepare(store)
            try fs.createDirectory(store.layout.absolute(directory))
            try fs.createDirectory(dir)
            if fs.fileExists(store.layout.absolute(stampFile(table))) {
                try fs.removeFile(store.layout.absolute(stampFile(table)))
                try fs.syncDirectory(dir)
            }
            let sorter = RunSorter(budget: store.idIndexSortBudget, folders: store.scratchFolders(environment: [:]))
            try feed(sorter, table, store)
            let buckets = try writeBuckets(from: sorter, half: max(1, store.idIndexBucketLimit / 2), into: dir, fs: fs)
            store.lastIDIndexRebuild = RebuildFigures(peakRecords: sorter.peakRecords, runs: sorter.runsWritten, keys: buckets.keys)
            let kept = Set(buckets.list.map(\.name))
            for name in try fs.listDirectory(dir) ?? [] where UInt32(name) != nil && !kept.contains(name) {
                try fs.removeFile(dir.appendingPath(name))
            }
            try fs.writeFile(store.layout.absolute(directoryFile(table)), directoryJSON(buckets.list).canonicalBytes(), sync: false)
            try fs.syncFileSystem(store.layout.root)
            try AtomicFile.write(stampText(items: stamps.items, numbers: stamps.numbers), to: store.layout.absolute(stampFile(table)), in: fs)
            store.idIndexesLeftStale.remove(table)
            return true
        } catch {
            try? fs.removeFile(AtomicFile.tempPath(for: store.layout.absolute(stampFile(table))))
            return false
        }
    }

    /// Every id of the numbers files (payload: its number) and of the item files (payload
    /// empty), keyed by the id's bytes and a 0, so that an id's records sort together and before
    /// any longer id that starts with it (ids hold no control characters).
    static func feed(_ sorter: RunSorter, _ table: String, _ store: Store) throws {
        let numbers = ItemNumbers.folder(store.layout, table)
        for name in try store.list(numbers) where name != "next" {
            guard let given = try store.decode(numbers + "/" + name, ItemNumbers.parseNumbers) else { continue }
            for (number, key) in given { try sorter.add(key: Array(key.utf8) + [0], payload: Array(String(number).utf8)) }
        }
        try store.forEachItemKeyOnDisk(table: table) { key throws(StoreError) in
            do throws(FileSystemError) { try sorter.add(key: Array(key.utf8) + [0], payload: []) } catch { throw .io(error) }
        }
    }

    /// The merge of what `feed` sorted, an id at a time: each id that has an item file, with its
    /// newest number (an id that came back has several; one with no item file, its number
    /// retired, is left out), in key order, until `body` returns false.
    static func forEachFileID(in sorter: RunSorter, _ body: (_ key: String, _ number: Int?) -> Bool) throws(FileSystemError) {
        var current: (key: [UInt8], file: Bool, number: Int?)?
        var stopped = false
        func close() -> Bool {
            guard let done = current, done.file else { return true }
            return body(String(decoding: done.key.dropLast(), as: UTF8.self), done.number)
        }
        try sorter.sorted { record in
            if current?.key != record.key {
                guard close() else {
                    stopped = true
                    return false
                }
                current = (record.key, false, nil)
            }
            if record.payload.isEmpty {
                current!.file = true
            } else if let number = Int(String(decoding: record.payload, as: UTF8.self)), number > current!.number ?? 0 {
                current!.number = number
            }
            return true
        }
        if !stopped { _ = close() }
    }

    /// Merges the sort into buckets filled half full (room for the next keys before a split),
    /// each written as soon as it is full. An id with no item file (its number retired) is left
    /// out; one with several numbers (it came back) gets the newest.
    private static func writeBuckets(from sorter: RunSorter, half: Int, into dir: String,
                                     fs: any FileSystem) throws -> (list: [(name: String, bound: String)], keys: Int) {
        var list: [(name: String, bound: String)] = []
        var pending: [Entry] = []
        var keys = 0
        var failure: FileSystemError?
        func flush() -> Bool {
            let name = String(list.count + 1)
            list.append((name, list.isEmpty ? "" : pending[0].key))
            do { try fs.writeFile(dir.appendingPath(name), bucketJSON(pending).canonicalBytes(), sync: false) } catch {
                failure = error
                return false
            }
            pending.removeAll(keepingCapacity: true)
            return true
        }
        try forEachFileID(in: sorter) { key, number in
            pending.append(Entry(key: key, number: number))
            keys += 1
            return pending.count < half || flush()
        }
        if failure == nil, !pending.isEmpty || list.isEmpty { _ = flush() }
        if let failure { throw failure }
        return (list, keys)
    }
}

extension Store {
    /// Rebuilds the index of ids of each table this command's commits left stale (a pull of many
    /// new items): once, at the end, so that the next `edit` by short id does not pay for it.
    public func rebuildIDIndexesLeftStale() {
        for table in idIndexesLeftStale.sorted() where !IDIndex.isVouched(table, in: self) {
            IDIndex.rebuild(table, self)
        }
        idIndexesLeftStale = []
    }
}
