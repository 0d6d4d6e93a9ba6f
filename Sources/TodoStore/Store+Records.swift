import TodoBasics
import TodoModel

/// Typed reads of the store's records.
extension Store {
    public func config() throws(StoreError) -> ReplicaConfig {
        guard let c = try read(StoreLayout.configFile, as: ConfigFile.self) else {
            throw .corrupt(path: displayPath(StoreLayout.configFile), reason: "missing")
        }
        return c
    }

    public func state() throws(StoreError) -> ReplicaState {
        guard let s = try read(StoreLayout.stateFile, as: StateFile.self) else {
            throw .corrupt(path: displayPath(StoreLayout.stateFile), reason: "missing")
        }
        return s
    }

    /// Table names as stored (their first spelling).
    public func tables() throws(StoreError) -> [String] {
        try list(StoreLayout.tablesDirectory).sorted()
    }

    /// The stored spelling of a table, matched ignoring case; nil when the replica lacks it.
    public func resolveTable(_ name: String) throws(StoreError) -> String? {
        try tables().first { TableName.same($0, name) }
    }

    /// The last local changes `todo undo` can take back; empty when none was recorded.
    public func undoLog() throws(StoreError) -> UndoLog {
        try read(StoreLayout.undoFile, as: UndoFile.self) ?? UndoLog()
    }

    /// The remote's tables at the last `pull --all-tables`, or nil when it never listed them.
    public func serverTables() throws(StoreError) -> ServerTableList? {
        try read(StoreLayout.serverTablesFile, as: ServerTablesFile.self)
    }

    public func tableConfig(_ table: String) throws(StoreError) -> TableConfig? {
        try read(layout.tableConfig(table), as: TableConfigFile.self)
    }

    // MARK: Items

    /// The item, as its file holds it. A hand edit of the file is refused (`.editedByHand`), or
    /// noted in `handEditLog`.
    public func item(table: String, id: String) throws(StoreError) -> Item? {
        guard let file = try itemFile(table: table, id: id) else { return nil }
        try check(file, table: table)
        return file.item
    }

    /// The item file, hand edit or not (`edit --adopt` and `--discard` need what todo wrote).
    public func itemFile(table: String, id: String) throws(StoreError) -> ItemFile? {
        let path = layout.item(table, id)
        guard let file = try decodeItemFile(path), ItemID.same(file.item.id, id) else { return nil }  // a hashed name shared by another id
        return file
    }

    /// Every item of a table (reads the whole items folder); hand edits as for `item`.
    public func items(table: String) throws(StoreError) -> [Item] {
        var items: [Item] = []
        for file in try itemFiles(table: table) {
            try check(file, table: table)
            items.append(file.item)
        }
        return items
    }

    /// Whether some item of a table matches, reading item files one at a time only until one
    /// does (`status` asks whether a table without queries was ever pulled).
    public func containsItem(table: String, where matches: (Item) -> Bool) throws(StoreError) -> Bool {
        let dir = layout.itemsDirectory(table)
        var found = false
        try scanItemFileNames(table: table) { name throws(StoreError) in
            if let file = try decodeItemFile(dir + "/" + name), matches(file.item) { found = true }
            return !found
        }
        return found
    }

    /// Every item file of a table, hand-edited or not. A large table is read on 8 threads.
    public func itemFiles(table: String) throws(StoreError) -> [ItemFile] {
        let dir = layout.itemsDirectory(table)
        return try readItemFiles(try list(dir).filter { $0.hasSuffix(".json") }.map { dir + "/" + $0 }, parallel: true)
    }

    /// Every item file of a table, one at a time, without holding them or the folder's listing:
    /// names are taken from the folder in batches of 2,048, each read (on 8 threads) then given
    /// to `body` in order; each file is read once. For `list` and `export` of a million items.
    /// `include` picks by file name (`<enc>.json`) before a file is read.
    public func forEachItemFile(table: String, include: (String) -> Bool = { _ in true },
                                _ body: (ItemFile) throws(StoreError) -> Void) throws(StoreError) {
        let dir = layout.itemsDirectory(table)
        var batch: [String] = []
        func drain() throws(StoreError) {
            for file in try readItemFiles(batch, parallel: true) { try body(file) }
            batch.removeAll(keepingCapacity: true)
        }
        try scanItemFileNames(table: table) { name throws(StoreError) in
            guard include(name) else { return true }
            batch.append(dir + "/" + name)
            peakItemFilesHeld = max(peakItemFilesHeld, batch.count)
            if batch.count == itemBatchSize { try drain() }
            return true
        }
        if !batch.isEmpty { try drain() }
    }

    /// Each item file at these paths, or why it could not be read (nil: missing), in order; more
    /// than 256 on 8 threads. For `doctor`, which reports every damaged file instead of stopping.
    func readEachItemFile(_ paths: [String]) -> [Result<ItemFile?, StoreError>] {
        let reader = ParallelReader(store: self)
        guard paths.count > 256 else { return reader.readEach(paths) }
        return WorkerPool.map(Recovery.chunks(paths, count: 8), width: 8, { chunk in reader.readEach(chunk) }).flatMap { $0 }
    }

    /// The item files at these paths (missing ones left out); more than 256 on 8 threads.
    func readItemFiles(_ paths: [String], parallel: Bool) throws(StoreError) -> [ItemFile] {
        guard parallel, paths.count > 256 else { return try readItemFiles(paths) }
        let reader = ParallelReader(store: self)
        var files: [ItemFile] = []
        for result in WorkerPool.map(Recovery.chunks(paths, count: 8), width: 8, { chunk in reader.readItems(chunk) }) { files += try result.get() }
        return files
    }

    /// Each run of paths in one folder is read with that folder opened once.
    fileprivate func readItemFiles(_ paths: [String]) throws(StoreError) -> [ItemFile] {
        var files: [ItemFile] = []
        files.reserveCapacity(paths.count)
        var start = 0
        while start < paths.count {
            let folder = paths[start].parentPath
            var end = start + 1
            while end < paths.count, paths[end].parentPath == folder { end += 1 }
            let run = paths[start..<end]
            for (path, bytes) in zip(run, try bytes(in: folder, names: run.map(\.lastPathComponent))) {
                if let bytes { files.append(try itemFile(path, record(path, bytes))) }
            }
            start = end
        }
        return files
    }

    func decodeItemFile(_ path: String) throws(StoreError) -> ItemFile? {
        guard let json = try record(path) else { return nil }
        return try itemFile(path, json)
    }

    private func itemFile(_ path: String, _ json: JSONValue) throws(StoreError) -> ItemFile {
        do { return try ItemFile(path: path, json: json) } catch { throw .corrupt(path: displayPath(path), reason: error.message) }
    }

    /// Refuses or notes a hand-edited item file.
    func check(_ file: ItemFile, table: String) throws(StoreError) {
        guard let changes = file.handChanges else { return }
        try met(HandEdit(table: table, id: file.item.id, path: file.path, subject: .item(changes: changes)))
    }

    /// Items whose id starts with `prefix`, ignoring case (for short ids, like git's).
    public func items(table: String, idPrefix prefix: String) throws(StoreError) -> [Item] {
        let dir = layout.itemsDirectory(table)
        let pattern = IDEncoding.prefixPattern(prefix)
        let key = ItemID.key(prefix)
        var found: [Item] = []
        for name in try list(dir) where name.hasSuffix(".json") {
            if IDEncoding.isHashed(name) || name.hasPrefix(pattern) {
                if let item = try decode(dir + "/" + name, ItemCopyFormat.item), ItemID.key(item.id).hasPrefix(key) {
                    found.append(item)
                }
            }
        }
        return found
    }

    // MARK: Operations

    /// The queue as file names, in order, without opening any file.
    public func operationNames() throws(StoreError) -> [OperationFileName] {
        var names: [OperationFileName] = []
        for name in try list(StoreLayout.operationsDirectory) { names.append(try operationName(listed: name)) }
        return names.sorted { $0.sequence < $1.sequence }
    }

    /// A name listed in the operations folder, parsed; refused when it is not an operation file
    /// name, or not the name todo gives that operation (every reader opens todo's name).
    func operationName(listed name: String) throws(StoreError) -> OperationFileName {
        guard let parsed = OperationFileName(parsing: name) else {
            throw .corrupt(path: displayPath(StoreLayout.operationsDirectory + "/" + name),
                           reason: "not an operation file name; expected <sequence>.<kind>.<table>.<id>.json")
        }
        guard parsed.name == name else { throw misnamed(name, parsed) }
        return parsed
    }

    private func misnamed(_ name: String, _ parsed: OperationFileName) -> StoreError {
        .misnamedOperation(path: displayPath(StoreLayout.operationsDirectory + "/" + name), expected: parsed.name)
    }

    /// The queue's file names one at a time, in folder order (not queue order), without holding
    /// the listing: for `log` and `diff`, which sort them on disk (`RunSorter`).
    public func forEachOperationName(_ body: (OperationFileName) throws(StoreError) -> Void) throws(StoreError) {
        var failure: StoreError?
        do {
            _ = try fs.scanDirectory(layout.absolute(StoreLayout.operationsDirectory)) { name in
                guard !StoreLayout.isLeftover(name) else { return true }
                do throws(StoreError) {
                    try body(try operationName(listed: name))
                    return true
                } catch {
                    failure = error
                    return false
                }
            }
        } catch {
            throw .io(error)
        }
        if let failure { throw failure }
    }

    public func operation(_ name: OperationFileName) throws(StoreError) -> PendingOperation? {
        let path = StoreLayout.operationsDirectory + "/" + name.name
        guard let json = try record(path) else { return nil }
        return try operation(name, path: path, json)
    }

    /// The op a file holds, checked against its name.
    private func operation(_ name: OperationFileName, path: String, _ json: JSONValue) throws(StoreError) -> PendingOperation {
        let op: PendingOperation
        do { op = try OperationFile(json: json).value } catch { throw .corrupt(path: displayPath(path), reason: error.message) }
        guard op.sequence == name.sequence, op.kind == name.kind, op.table == name.table,
              IDEncoding.fileName(for: op.id) == name.encodedID
        else {
            throw .corrupt(path: displayPath(path),
                           reason: "the file name does not match its content (sequence \(op.sequence), kind \(op.kind.rawValue), table \(op.table), id \(op.id))")
        }
        return op
    }

    /// Every pending operation in queue order, optionally of one table.
    /// A long queue (a push of thousands) is read on 8 threads: each file costs an open and a
    /// read in the kernel, and those overlap.
    public func operations(table: String? = nil) throws(StoreError) -> [PendingOperation] {
        try operations(named: try operationNames().filter { table == nil || $0.table == table })
    }

    /// The ops of these names, in their order; a file gone is skipped (a window of `push`, a batch
    /// of `status`). More than 256 on 8 threads.
    public func operations(named names: [OperationFileName]) throws(StoreError) -> [PendingOperation] {
        guard names.count > 256 else { return try read(names) }
        let reader = ParallelReader(store: self)
        var ops: [PendingOperation] = []
        for result in WorkerPool.map(Recovery.chunks(names, count: 8), width: 8, { chunk in reader.read(chunk) }) { ops += try result.get() }
        return ops
    }

    /// The ops of these names, the folder opened once.
    fileprivate func read(_ names: [OperationFileName]) throws(StoreError) -> [PendingOperation] {
        let folder = StoreLayout.operationsDirectory
        let fileNames = names.map(\.name)
        var ops: [PendingOperation] = []
        ops.reserveCapacity(names.count)
        for ((name, fileName), bytes) in zip(zip(names, fileNames), try bytes(in: folder, names: fileNames)) {
            guard let bytes else { continue }
            let path = folder + "/" + fileName
            ops.append(try operation(name, path: path, record(path, bytes)))
        }
        return ops
    }

    /// The pending operations of one item, in queue order.
    /// Opens only the names the index of pending operations gives (`PendingIndex`) while it
    /// vouches for the folder; otherwise lists the folder, matching names by their
    /// `.<table>.<enc>.json` ending before parsing any, and a writer rebuilds the index from that
    /// listing (`keepsPendingIndex`). So a local change costs the same however long the queue is.
    public func operations(table: String, id: String) throws(StoreError) -> [PendingOperation] {
        let encoded = IDEncoding.fileName(for: id)
        let suffix = ".\(table).\(encoded).json"
        if let indexed = indexedOperationNames(table: table, encodedID: encoded, suffix: suffix),
           let ops = try operations(named: indexed, table: table, id: id, missing: .stale) {
            return ops
        }
        pendingIndexStamp = nil
        let folder = fs.directoryStamp(layout.absolute(StoreLayout.operationsDirectory))
        var listed: [String] = []
        do {
            _ = try fs.scanDirectory(layout.absolute(StoreLayout.operationsDirectory)) { name in
                if name.hasSuffix(suffix) && !StoreLayout.isLeftover(name) { listed.append(name) }
                return true
            }
        } catch { throw .io(error) }
        if isWritable && keepsPendingIndex { PendingIndex.rebuild(self, folder: folder) }
        return try operations(named: listed, table: table, id: id, missing: .skipped) ?? []
    }

    /// What a named operation file that is not there means.
    private enum MissingOperation { case stale, skipped }

    /// The names of an item's operation files from the index, when it vouches for the folder now.
    private func indexedOperationNames(table: String, encodedID: String, suffix: String) -> [String]? {
        guard let stamp = PendingIndex.vouchedStamp(self),
              let names = PendingIndex.names(PendingIndex.bucketPath(PendingIndex.bucket(table: table, encodedID: encodedID)), in: self)
        else { return nil }
        pendingIndexStamp = stamp
        return names.filter { $0.hasSuffix(suffix) }
    }

    /// The operations these names hold for the item, in queue order. A file that is gone makes
    /// an index's names `.stale` (nil: a hand deletion); one gone from a listing is `.skipped`.
    private func operations(named raw: [String], table: String, id: String,
                            missing: MissingOperation) throws(StoreError) -> [PendingOperation]? {
        var names: [OperationFileName] = []
        for name in raw {
            if let parsed = OperationFileName(parsing: name), parsed.table == table {
                guard parsed.name == name else { throw misnamed(name, parsed) }
                names.append(parsed)
            }
        }
        var ops: [PendingOperation] = []
        for name in names.sorted(by: { $0.sequence < $1.sequence }) {
            guard let op = try operation(name) else {
                if missing == .stale { return nil }
                continue
            }
            if ItemID.same(op.id, id) { ops.append(op) }
        }
        return ops
    }

    // MARK: Conflicts and receipts

    public func conflict(table: String, id: String) throws(StoreError) -> Conflict? {
        guard let c = try read(layout.conflict(table, id), as: ConflictFile.self), ItemID.same(c.id, id) else { return nil }
        return c
    }

    public func hasConflict(table: String, id: String) -> Bool {
        fs.fileExists(layout.absolute(layout.conflict(table, id)))
    }

    public func conflictNames() throws(StoreError) -> [ConflictFileName] {
        var names: [ConflictFileName] = []
        for name in try list(StoreLayout.conflictsDirectory) {
            guard let parsed = ConflictFileName(parsing: name) else {
                throw .corrupt(path: displayPath(StoreLayout.conflictsDirectory + "/" + name),
                               reason: "not a conflict file name; expected <table>.<id>.json")
            }
            names.append(parsed)
        }
        return names.sorted { ($0.table, $0.encodedID) < ($1.table, $1.encodedID) }
    }

    public func conflicts() throws(StoreError) -> [Conflict] {
        var result: [Conflict] = []
        for name in try conflictNames() {
            let path = StoreLayout.conflictsDirectory + "/\(name.table).\(name.encodedID).json"
            if let c = try read(path, as: ConflictFile.self) { result.append(c) }
        }
        return result
    }

    /// Receipts, oldest first.
    public func receipts() throws(StoreError) -> [Receipt] {
        var result: [Receipt] = []
        for name in try list(StoreLayout.receiptsDirectory).sorted() where name.hasSuffix(".json") {
            if let r = try read(StoreLayout.receiptsDirectory + "/" + name, as: ReceiptFile.self) { result.append(r) }
        }
        return result.sorted { $0.number < $1.number }
    }

    /// What the collapse rules need to know about one item. A hand edit of the item file, or of
    /// its last operation's copy to send, is refused (`.editedByHand`) or noted in `handEditLog`.
    public func history(table: String, id: String) throws(StoreError) -> ItemHistory {
        try history(table: table, id: id, operations: try operations(table: table, id: id))
    }

    /// As `history(table:id:)`, with the item's operations already read: for a caller that reads
    /// the whole queue once (`diff`), instead of listing the operations folder for every item.
    public func history(table: String, id: String, operations ops: [PendingOperation]) throws(StoreError) -> ItemHistory {
        let file = try itemFile(table: table, id: id)
        for edit in handEdits(file, operations: ops, table: table) { try met(edit) }
        return ItemHistory(table: table, id: id, item: file?.item, operations: ops, hasConflict: hasConflict(table: table, id: id))
    }

    /// The hand edits an item file and its operations show (see `HandEdit`).
    public func handEdits(_ file: ItemFile?, operations ops: [PendingOperation], table: String) -> [HandEdit] {
        var edits: [HandEdit] = []
        if let file, let changes = file.handChanges {
            edits.append(HandEdit(table: table, id: file.item.id, path: file.path, subject: .item(changes: changes)))
        }
        if let file, let written = file.written, let last = ops.last, last.kind != .delete, last.item.fields != written {
            edits.append(HandEdit(table: table, id: last.id, path: layout.operation(last),
                                  subject: .operation(sequence: last.sequence, changes: FieldChange.between(written, last.item.fields))))
        }
        return edits
    }
}

/// Reads operation files on a worker thread; the store's reads touch no shared mutable state.
private final class ParallelReader: @unchecked Sendable {
    let store: Store
    init(store: Store) { self.store = store }

    func read(_ names: [OperationFileName]) -> Result<[PendingOperation], StoreError> {
        do throws(StoreError) {
            return .success(try store.read(names))
        } catch {
            return .failure(error)
        }
    }

    func readEach(_ paths: [String]) -> [Result<ItemFile?, StoreError>] {
        paths.map { path in
            do throws(StoreError) { return .success(try store.decodeItemFile(path)) } catch { return .failure(error) }
        }
    }

    func readItems(_ paths: [String]) -> Result<[ItemFile], StoreError> {
        do throws(StoreError) {
            return .success(try store.readItemFiles(paths))
        } catch {
            return .failure(error)
        }
    }
}
