import TodoBasics
import TodoModel

/// The item files of `Doctor`, walked a batch at a time (read on 8 threads): each file is checked
/// as it is read. The files of items with pending operations are left to their item's turn in the
/// queue (`DoctorQueue`), which checks them with their operations against sync.md §2.2.2. So
/// memory holds one batch, not a million items (issue 21).
extension Doctor {
    mutating func checkItems(_ table: String) {
        let dir = store.layout.itemsDirectory(table)
        forEachBatch(dir, size: store.itemBatchSize) { doctor, all in
            let names = all.filter { name in
                !(name.hasSuffix(".json") && doctor.queue.items.contains(DoctorQueue.itemKey(table, String(name.dropLast(5)))))
            }
            let paths = names.map { dir + "/" + $0 }
            let results = doctor.store.readEachItemFile(paths)
            doctor.report.figures.itemFiles = max(doctor.report.figures.itemFiles, results.count + doctor.queue.copies.count)
            for (name, (path, result)) in zip(names, zip(paths, results)) {
                guard let file = doctor.attempt(path, { () throws(StoreError) in try result.get() }) else { continue }
                let key = DoctorQueue.itemKey(table, id: file.item.id)
                if doctor.queue.items.contains(key) {
                    // A copy, under another name, of an item with operations: checked with them in its turn.
                    doctor.checkItem(file, name: name, table: table, operations: nil)
                    if doctor.queue.copies[key] == nil { doctor.queue.copies[key] = file }
                } else {
                    doctor.checkItem(file, name: name, table: table, operations: [])
                }
            }
        }
    }

    /// One item file: its name, its id, its hand edits against its item's operations (nil: a
    /// copy whose item's turn checks them).
    mutating func checkItem(_ file: ItemFile, name: String, table: String, operations ops: [PendingOperation]?) {
        let path = file.path
        report.items += 1
        let item = file.item
        let matchesName = IDEncoding.fileName(for: item.id) + ".json" == name
        if !matchesName { problem(path, .itemNameMismatch(id: item.id)) }
        if item.system.deleted != nil { problem(path, .itemHoldsDeleted) }
        if let p = ItemID.problem(item.id) { problem(path, .invalidID(reason: p)) }
        if let ops { for edit in store.handEdits(file, operations: ops, table: table) { problem(edit.path, .editedByHand(edit)) } }
    }
}
