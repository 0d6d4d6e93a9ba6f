import TodoBasics
import TodoModel

/// The pending operations of `Doctor`, in bounded memory (issue 21: doctor held every operation
/// and the item file of each of their items, 242 MB at 100,000 pending operations).
///
/// First the names (`checkOperationNames`): each is checked as the folder is walked, then goes
/// into an external sort by item and one by sequence (`RunSorter`), and its item into a set of
/// hashes (`ItemKeySet`), so that the walk of the item files leaves those items to the queue.
/// Then an item at a time, in the sort's order (`checkQueue`), its operations, its item file and
/// its conflict are read, checked together against sync.md §2.2.2, and dropped.
struct DoctorQueue {
    let byItem: RunSorter
    let bySequence: RunSorter
    /// `<table>/<encoded id>` of every item with a pending operation (from the operation's name).
    var items = ItemKeySet()
    /// Item files not named after the id they hold whose item has pending operations (copies
    /// made by hand), found by the walk of the item files: checked in the item's turn. Rare:
    /// each is a problem of its own.
    var copies: [String: ItemFile] = [:]
    /// The conflicts by item, with where each was found; a conflict's operation is looked for in
    /// its item's turn, which notes the conflict's path when it is pending.
    var conflicts: [String: [(path: String, conflict: Conflict)]] = [:]
    var conflictsMet: Set<String> = []
    /// The most operations one turn held.
    var largestTurn = 0

    init(_ store: Store) {
        let folders = store.scratchFolders(environment: [:])
        byItem = RunSorter(budget: store.pendingIndexSortBudget, folders: folders)
        bySequence = RunSorter(budget: store.pendingIndexSortBudget, folders: folders)
    }

    static func itemKey(_ table: String, _ encodedID: String) -> String { table + "/" + encodedID }
    static func itemKey(_ table: String, id: String) -> String { itemKey(table, IDEncoding.fileName(for: id)) }
}

extension Doctor {
    /// The operation files' names, without holding them: a name todo does not give is a problem;
    /// the others go into the sorts (`DoctorQueue`).
    mutating func checkOperationNames() {
        let dir = StoreLayout.operationsDirectory
        var failure: FileSystemError?
        forEachBatch(dir, size: 1024) { doctor, batch in
            for name in batch where failure == nil {
                let path = dir + "/" + name
                guard let parsed = OperationFileName(parsing: name) else {
                    doctor.problem(path, .notAnOperationFileName); continue
                }
                // Commands read an operation by the name todo gives it: under any other spelling of it
                // (`9.` for `0000000009.`) the file would be read by none of them.
                if parsed.name != name { doctor.problem(path, .operationFileMisnamed(expected: parsed.name)); continue }
                let item = DoctorQueue.itemKey(parsed.table, parsed.encodedID)
                doctor.queue.items.insert(item)
                do throws(FileSystemError) {
                    try doctor.queue.byItem.add(key: Array(item.utf8) + [0] + RunSorter.numberKey(parsed.sequence), payload: Array(name.utf8))
                    try doctor.queue.bySequence.add(key: RunSorter.numberKey(parsed.sequence) + Array(name.utf8), payload: [])
                } catch { failure = error }
            }
        }
        queue.items.finish()
        if let failure { problem(dir, .unreadable(.io(failure))) }
    }

    /// The conflicts, kept by item for the queue's turns.
    mutating func checkConflicts() {
        let store = self.store
        for name in entries(StoreLayout.conflictsDirectory) {
            let path = StoreLayout.conflictsDirectory + "/" + name
            guard let c = attempt(path, { () throws(StoreError) in try store.read(path, as: ConflictFile.self) }) else { continue }
            report.conflicts += 1
            if store.layout.conflict(c.table, c.id) != path { problem(path, .conflictNameMismatch(table: c.table, id: c.id)) }
            queue.conflicts[DoctorQueue.itemKey(c.table, id: c.id), default: []].append((path, c))
        }
    }

    /// Each item with pending operations in turn (`DoctorQueue`), then the sequences used twice
    /// and the conflicts whose operation is not pending.
    mutating func checkQueue() {
        var turn: (item: ArraySlice<UInt8>, names: [OperationFileName])?
        var failure: FileSystemError?
        let byItem = queue.byItem, bySequence = queue.bySequence
        do {
            try byItem.sorted { record in
                let item = record.key.dropLast(9)
                guard let name = OperationFileName(parsing: String(decoding: record.payload, as: UTF8.self)) else { return true }
                if turn?.item == item {
                    turn!.names.append(name)
                } else {
                    if let done = turn { checkTurn(done.names) }
                    turn = (item, [name])
                }
                return true
            }
        } catch { failure = error }
        if let done = turn { checkTurn(done.names) }
        var previous: [UInt8]?
        do {
            try bySequence.sorted { record in
                let sequence = Array(record.key.prefix(8))
                let name = String(decoding: record.key.dropFirst(8), as: UTF8.self)
                if sequence == previous, let parsed = OperationFileName(parsing: name) {
                    problem(StoreLayout.operationsDirectory + "/" + name, .sequenceUsedTwice(parsed.sequence))
                }
                previous = sequence
                return true
            }
        } catch { failure = failure ?? error }
        if let failure { problem(StoreLayout.operationsDirectory, .unreadable(.io(failure))) }
        for (path, c) in queue.conflicts.values.joined() where !queue.conflictsMet.contains(path) {
            problem(path, .conflictOperationNotPending(sequence: c.operation.sequence))
        }
        report.figures.operations = queue.largestTurn
        report.figures.queueNames = byItem.peakRecords + bySequence.peakRecords
        report.figures.queueRuns = byItem.runsWritten + bySequence.runsWritten
    }

    /// One item's turn: its operations (in queue order), its item file, its conflict.
    private mutating func checkTurn(_ names: [OperationFileName]) {
        let store = self.store
        var ops: [PendingOperation] = []
        for name in names {
            let path = StoreLayout.operationsDirectory + "/" + name.name
            guard let op = attempt(path, { () throws(StoreError) in try store.operation(name) }) else { continue }
            report.operations += 1
            if let state, op.sequence >= state.nextSequence {
                problem(path, .sequenceNotBelowNext(sequence: op.sequence, next: state.nextSequence))
            }
            if !tables.contains(op.table) { problem(path, .unknownTable(op.table)) }
            ops.append(op)
        }
        queue.largestTurn = max(queue.largestTurn, ops.count)
        guard let first = names.first else { return }
        let key = DoctorQueue.itemKey(first.table, first.encodedID)
        // Its item file, which the walk of the item files left to this turn.
        var file: ItemFile?
        if tables.contains(first.table) {
            let name = first.encodedID + ".json"
            let path = store.layout.itemsDirectory(first.table) + "/" + name
            if let read = attempt(path, { () throws(StoreError) in try store.readEachItemFile([path])[0].get() }) {
                let itsKey = DoctorQueue.itemKey(first.table, id: read.item.id)
                if itsKey == key {
                    checkItem(read, name: name, table: first.table, operations: ops)
                    file = read
                } else if queue.items.contains(itsKey) {
                    // Another item's copy (its turn may have passed: then its edits go unchecked).
                    checkItem(read, name: name, table: first.table, operations: nil)
                    if queue.copies[itsKey] == nil { queue.copies[itsKey] = read }
                } else {
                    checkItem(read, name: name, table: first.table, operations: [])
                }
            }
        }
        if let copy = queue.copies.removeValue(forKey: key) {
            for edit in store.handEdits(copy, operations: ops, table: first.table) { problem(edit.path, .editedByHand(edit)) }
            if file == nil { file = copy }
        }
        let conflicts = queue.conflicts[key] ?? []
        for (path, c) in conflicts where ops.contains(where: { $0.sequence == c.operation.sequence }) { queue.conflictsMet.insert(path) }
        guard !ops.isEmpty else { return }
        checkInvariants(ops, file: file, conflict: conflicts.last?.conflict)
    }
}
