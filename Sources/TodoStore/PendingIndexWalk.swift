import TodoBasics

/// The files of the index of pending operations (`PendingIndex`) that the operations folder
/// makes, one file at a time in path order, in bounded memory: the rebuild and doctor's check
/// held the listing and every file's names as strings (518 MB at a million operations, issue 21).
///
/// The folder is walked once without holding its listing; each name goes into an external sort
/// (`RunSorter`) keyed by the path of the file it belongs in and the name, so the merge gives each
/// file's names together. The `items` pages need each item's first operation: the names go
/// through a sort by item and sequence first, whose merge gathers an item at a time.
enum PendingIndexWalk {
    /// Calls `body` with each file the folder makes and its names, in path order. Leftovers are
    /// skipped as a listing does; a name that is no operation file name goes in `strays`.
    static func forEachFile(_ store: Store, figures: inout PendingIndexFigures,
                            _ body: (_ path: String, _ names: [String]) throws(FileSystemError) -> Void) throws(FileSystemError) {
        let folders = store.scratchFolders(environment: [:])
        let files = RunSorter(budget: store.pendingIndexSortBudget, folders: folders)
        let byItem = RunSorter(budget: store.pendingIndexSortBudget, folders: folders)
        var failure: FileSystemError?
        func add(_ sorter: RunSorter, _ key: [UInt8], _ payload: [UInt8]) {
            guard failure == nil else { return }
            do throws(FileSystemError) { try sorter.add(key: key, payload: payload) } catch { failure = error }
        }
        func file(_ path: String, _ name: String) -> [UInt8] { Array(path.utf8) + [0] + Array(name.utf8) }
        _ = try store.fs.scanDirectory(store.layout.absolute(StoreLayout.operationsDirectory)) { name in
            guard !StoreLayout.isLeftover(name) else { return true }
            guard let p = OperationFileName(parsing: name) else {
                add(files, file(PendingIndex.straysFile, name), [])
                return failure == nil
            }
            add(files, file(PendingIndex.bucketPath(PendingIndex.bucket(table: p.table, encodedID: p.encodedID)), name), [])
            if p.kind == .delete { add(files, file(PendingIndex.deletesFile, name), []) }
            add(files, file(PendingIndex.queuePage(p.sequence), name), [])
            add(byItem, Array(PendingIndex.itemKey(p).utf8) + [0] + RunSorter.numberKey(p.sequence), Array(name.utf8))
            return failure == nil
        }
        if let failure { throw failure }
        // An item's names, in sequence order: the first one says its page.
        var item: (key: ArraySlice<UInt8>, page: String, names: [String])?
        func flushItem() {
            guard let done = item else { return }
            for name in done.names { add(files, file(done.page, name), []) }
            item = nil
        }
        try byItem.sorted { record in
            let key = record.key.dropLast(9)
            let name = String(decoding: record.payload, as: UTF8.self)
            if item?.key == key {
                item!.names.append(name)
            } else {
                flushItem()
                let first = OperationFileName(parsing: name)?.sequence ?? 0
                item = (key, PendingIndex.itemsPage(first), [name])
            }
            figures.names = max(figures.names, byItem.peakRecords + files.peakRecords + (item?.names.count ?? 0))
            return failure == nil
        }
        flushItem()
        if let failure { throw failure }
        var current: (path: [UInt8], names: [String])?
        func flushFile() throws(FileSystemError) {
            guard let done = current else { return }
            current = nil
            try body(String(decoding: done.path, as: UTF8.self), done.names)
        }
        try files.sorted { record in
            let split = record.key.firstIndex(of: 0) ?? record.key.endIndex
            let path = record.key[..<split], name = String(decoding: record.key[(split + 1)...], as: UTF8.self)
            if let c = current, c.path.elementsEqual(path) {
                current!.names.append(name)
                return true
            }
            do throws(FileSystemError) { try flushFile() } catch {
                failure = error
                return false
            }
            current = (Array(path), [name])
            return true
        }
        if let failure { throw failure }
        try flushFile()
        figures.names = max(figures.names, byItem.peakRecords + files.peakRecords)
        figures.runs += files.runsWritten + byItem.runsWritten
    }
}

/// The most names a walk of `PendingIndexWalk` held at once in its sorts (besides the file it
/// gives: a page holds at most `PendingIndex.pageSize` names, a bucket about 1/1024 of the
/// queue), and the runs its sorts spilled to disk: what a test checks to know that the rebuild
/// and doctor's check did not hold the queue.
public struct PendingIndexFigures: Equatable, Sendable {
    public var names = 0
    public var runs = 0

    /// Both walks of a command (doctor's check, then its rebuild) as one figure.
    mutating func merge(_ other: PendingIndexFigures) {
        names = max(names, other.names)
        runs += other.runs
    }
}
