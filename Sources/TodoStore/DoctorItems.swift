import TodoBasics
import TodoModel

/// The item files of `Doctor`, walked a batch at a time (read on 8 threads) after the operations
/// and conflicts are known: each file is checked as it is read, and only the files of items with
/// pending operations are kept for the rules of sync.md §2.2.2 (`checkInvariants`). So memory
/// holds the queue and one batch, not a million items (issue 21).
extension Doctor {
    mutating func checkItems(_ table: String) {
        let dir = store.layout.itemsDirectory(table)
        forEachBatch(dir, size: store.itemBatchSize) { doctor, names in
            let paths = names.map { dir + "/" + $0 }
            let results = doctor.store.readEachItemFile(paths)
            doctor.report.figures.itemFiles = max(doctor.report.figures.itemFiles, doctor.itemFiles.count + results.count)
            for (name, (path, result)) in zip(names, zip(paths, results)) {
                guard let file = doctor.attempt(path, { () throws(StoreError) in try result.get() }) else { continue }
                doctor.checkItem(file, name: name, table: table)
            }
        }
    }

    /// One item file: its name, its id, its hand edits (with its operations, if any).
    private mutating func checkItem(_ file: ItemFile, name: String, table: String) {
        let path = file.path
        report.items += 1
        let item = file.item
        let matchesName = IDEncoding.fileName(for: item.id) + ".json" == name
        if !matchesName { problem(path, .itemNameMismatch(id: item.id)) }
        if item.system.deleted != nil { problem(path, .itemHoldsDeleted) }
        if let p = ItemID.problem(item.id) { problem(path, .invalidID(reason: p)) }
        let key = "\(table)/\(ItemID.key(item.id))"
        let ops = (opsByKey[key] ?? []).sorted { $0.sequence < $1.sequence }
        for edit in store.handEdits(file, operations: ops, table: table) { problem(edit.path, .editedByHand(edit)) }
        // Two files holding one id (a copy made by hand): the one named after the id is the item's.
        if !ops.isEmpty, itemFiles[key] == nil || matchesName { itemFiles[key] = file }
    }
}
