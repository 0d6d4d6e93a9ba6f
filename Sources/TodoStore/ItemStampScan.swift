import TodoBasics
import TodoModel

/// Hand edits of the item files a scan is given, reading only those the stamp cache does not
/// vouch for (`ItemStampCache`), in memory that does not grow with the table: the items folders
/// are walked and stamped a batch at a time into an external sort (`RunSorter`) by the cache's
/// own order, whose merge meets the cache's entries a page at a time. `status` held the cache
/// whole and rebuilt it whole: 16 bytes an item, 71 MB at a million items (issue 21).
struct ItemStampScan {
    let store: Store
    /// Files that had no hand edit are recorded for the next scan.
    let records: Bool

    /// A file of the walk, by the cache's order.
    private struct Walked {
        var entry: ItemStampCache.Entry
        /// Stamped before the scan began (not racily clean): it may be recorded.
        var recordable: Bool
        var stamped: Bool
        var table: String
        var path: String
    }

    /// Hand edits of the item files of `tables` that `include` takes (table, file name), unsorted.
    func handEdits(tables: [String], include: (String, String) -> Bool, onlyTable: Bool) throws(StoreError) -> [HandEdit] {
        let start = records ? ItemStampCache.Start(store) : nil
        let old = ItemStampCache.loadIndex(store)
        var cache = ItemStampCache.Reader(store, index: old)
        var writer = start.map { ItemStampCache.Writer(store, token: $0.token) }
        let sorter = RunSorter(budget: store.pendingIndexSortBudget, folders: store.scratchFolders(environment: [:]))
        var edits: [HandEdit] = []
        // While every entry written is the old cache's next one, nothing is written: an unchanged
        // cache is not rewritten. `deferred` counts them; on the first difference they are copied.
        var deferred: Int? = onlyTable ? nil : 0
        var added = false
        do throws(StoreError) {
            for t in tables { try walk(t, include: include, moment: start?.moment, into: sorter) }
            var batch: [Walked] = []
            var failure: StoreError?
            func drain() throws(StoreError) {
                defer { batch.removeAll(keepingCapacity: true) }
                var hit: [Bool] = []
                var passed: [Int] = []
                for w in batch {
                    hit.append(w.stamped && cache.contains(w.entry))
                    passed.append(cache.consumed)
                }
                store.peakStampsHeld = max(store.peakStampsHeld, batch.count + cache.held + (writer?.held ?? 0))
                var clean = hit
                let toRead = batch.indices.filter { !hit[$0] }
                var at = 0
                for file in try store.readItemFiles(toRead.map { batch[$0].path }, parallel: true) {
                    while at < toRead.count && batch[toRead[at]].path != file.path { at += 1 }
                    guard at < toRead.count else { break }
                    let found = store.handEdits(file, operations: [], table: batch[toRead[at]].table)
                    clean[toRead[at]] = found.isEmpty
                    edits += found
                    at += 1
                }
                guard writer != nil else { return }
                for (i, w) in batch.enumerated() where w.recordable && clean[i] {
                    if let n = deferred, hit[i], passed[i] == n + 1 {
                        deferred = n + 1
                        continue
                    }
                    if let n = deferred { copy(n, of: old, into: &writer!) }
                    deferred = nil
                    added = added || !hit[i]
                    writer!.add(w.entry)
                }
                store.peakStampsHeld = max(store.peakStampsHeld, batch.count + cache.held + (writer?.held ?? 0))
            }
            do throws(FileSystemError) {
                try sorter.sorted { record in
                    batch.append(walked(record))
                    guard batch.count >= max(1, store.itemBatchSize) else { return true }
                    do throws(StoreError) { try drain() } catch {
                        failure = error
                        return false
                    }
                    return true
                }
            } catch { throw .io(error) }
            if let failure { throw failure }
            if !batch.isEmpty { try drain() }
            store.stampRunsWritten += sorter.runsWritten
        } catch {
            if let start { writer?.abandon(start) }
            throw error
        }
        guard let start, var writer else { return edits }
        /// Nothing to commit: every page but the cache's goes (this writer's, and a scan's killed
        /// before its commit, which a commit would have removed), in one pass over the folder.
        func keepTheCache() {
            start.abandon(store)
            writer.removePages { name in !(old.map { name.hasPrefix($0.token + ".") } ?? false) }
        }
        if deferred != nil, cache.passedAll {
            keepTheCache()  // every entry met again, each recorded: the cache is right
        } else if onlyTable {
            if added { ItemStampCache.unite(store, old: old, new: &writer, start) } else { keepTheCache() }
        } else {
            if let n = deferred { copy(n, of: old, into: &writer) }
            writer.commit(start)
        }
        return edits
    }

    /// The first `count` entries of the old cache, as they were.
    private func copy(_ count: Int, of old: ItemStampCache.Index?, into writer: inout ItemStampCache.Writer) {
        var reader = ItemStampCache.Reader(store, index: old)
        for _ in 0..<count {
            guard let e = reader.next() else { break }
            writer.add(e)
        }
    }

    /// Each item file `include` takes into the sort, stamped a batch at a time: the key is its
    /// entry (big-endian), the payload whether it may be recorded, its table and name.
    private func walk(_ table: String, include: (String, String) -> Bool, moment: Int64?, into sorter: RunSorter) throws(StoreError) {
        let fs = store.fs
        let dir = store.layout.itemsDirectory(table)
        var names: [String] = []
        var failure: FileSystemError?
        func drain() -> Bool {
            defer { names.removeAll(keepingCapacity: true) }
            for (name, stamp) in zip(names, fs.stamps(in: store.layout.absolute(dir), names: names)) {
                let path = dir + "/" + name
                let entry = stamp.map { ItemStampCache.Entry(path, $0) } ?? ItemStampCache.Entry(path: ItemStampCache.digest(path), stamp: 0)
                var flags: UInt8 = 0
                if let stamp {
                    flags |= 1
                    if let moment, stamp.latest < moment { flags |= 2 }
                }
                do { try sorter.add(key: ItemStampCache.key(entry), payload: [flags] + Array(table.utf8) + [0] + Array(name.utf8)) } catch {
                    failure = error
                    return false
                }
            }
            return true
        }
        do {
            _ = try fs.scanDirectory(store.layout.absolute(dir)) { name in
                guard name.hasSuffix(".json"), include(table, name) else { return true }
                names.append(name)
                return names.count < 2048 || drain()
            }
        } catch { throw .io(error) }
        if failure == nil, !names.isEmpty { _ = drain() }
        if let failure { throw .io(failure) }
    }

    private func walked(_ record: RunSorter.Record) -> Walked {
        let p = record.payload
        let split = p[1...].firstIndex(of: 0) ?? p.count
        let table = String(decoding: p[1..<split], as: UTF8.self)
        let name = String(decoding: p[min(split + 1, p.count)...], as: UTF8.self)
        return Walked(entry: ItemStampCache.entry(key: record.key), recordable: p[0] & 2 != 0, stamped: p[0] & 1 != 0,
                      table: table, path: store.layout.itemsDirectory(table) + "/" + name)
    }
}
