import TodoBasics
import TodoModel

/// The record checks of `Doctor`: operations, conflicts, receipts, and the rules that tie them to
/// the items (sync.md §2.2.2), edits made by hand included.
extension Doctor {
    /// The index of pending operations (`PendingIndex`): derived data, so what is wrong with it
    /// is a note, and a writer rebuilds it.
    mutating func checkPendingIndex() {
        for (path, finding) in PendingIndex.check(store) { note(path, finding) }
        report.figures.pendingIndex = store.pendingIndexFigures
    }

    /// The index of ids (`IDIndex`): derived data, as the index of pending operations.
    mutating func checkIDIndex() {
        var figures = IDIndex.CheckFigures()
        let findings = IDIndex.check(store, tables: tables, figures: &figures)
        report.figures.ids = figures.ids
        report.figures.idRuns = figures.runs
        for (path, finding) in findings { note(path, finding) }
    }

    /// The item numbers of a table (`ItemNumbers`): replica state, so a damaged file is a problem.
    mutating func checkNumbers(_ table: String) {
        let store = self.store
        let dir = ItemNumbers.folder(store.layout, table)
        var highest = 0
        var next: Int?
        for name in entries(dir) {
            let path = dir + "/" + name
            if name == "next" {
                next = attempt(path) { () throws(StoreError) in try store.decode(path, ItemNumbers.parseNext) }
                continue
            }
            guard let numbers = attempt(path, { () throws(StoreError) in try store.decode(path, ItemNumbers.parseNumbers) }) else { continue }
            for n in numbers.keys.sorted() {
                if ItemNumbers.file(store.layout, table, number: n) != path { problem(path, .numberInWrongFile(number: n, belongsIn: store.displayPath(ItemNumbers.file(store.layout, table, number: n)))) }
                highest = max(highest, n)
            }
        }
        if let next, next <= highest { problem(ItemNumbers.nextFile(store.layout, table), .nextNumberTaken(next: next, highest: highest)) }
        if next == nil && highest > 0 { problem(ItemNumbers.nextFile(store.layout, table), .nextNumberMissing(highest: highest)) }
    }

    /// sync.md §2.2.2 for one item with operations (in queue order), its item file if any and
    /// its conflict (`checkQueue`).
    mutating func checkInvariants(_ ops: [PendingOperation], file: ItemFile?, conflict: Conflict?) {
        let last = ops.last!
        let path = store.layout.operation(last)
        for (i, op) in ops.enumerated() {
            if op.kind == .insert && i > 0 { problem(store.layout.operation(op), .insertNotFirst) }
            // Behind an insert (sealed, or unsealed by a conflict) the base is that insert's
            // provisional one: null until the insert's push brings the server copy (§3.5.1).
            if op.kind != .insert && op.base == nil && ops.first?.kind != .insert {
                problem(store.layout.operation(op), .baseMissing(op.kind))
            }
            if op.kind == .delete && i < ops.count - 1 { problem(store.layout.operation(ops[i + 1]), .operationFollowsDelete) }
            if !op.isSealed && i < ops.count - 1 && conflict?.operation.sequence != op.sequence {
                problem(store.layout.operation(op), .unsealedNotLast)
            }
        }
        if last.kind == .delete, file != nil { problem(path, .deletedButItemFileExists) }
        if last.kind != .delete, !last.isSealed, let item = file?.item, !item.sameUserFields(as: last.item),
           file?.written == nil || file?.handChanges != nil {
            // (With `ms_written` intact, the same difference is reported as the operation's hand edit by `checkItem`.)
            problem(path, .itemDiffersFromItemFile(itemFile: store.layout.item(last.table, last.id)))
        }
        if last.kind != .delete, file == nil { problem(path, .itemFileMissing) }
    }

    mutating func checkReceipts() {
        let store = self.store
        for name in entries(StoreLayout.receiptsDirectory) {
            let path = StoreLayout.receiptsDirectory + "/" + name
            guard let r = attempt(path, { () throws(StoreError) in try store.read(path, as: ReceiptFile.self) }) else { continue }
            report.receipts += 1
            if store.layout.receipt(r) != path { problem(path, .receiptNameMismatch) }
            if let state, r.number >= state.nextReceipt {
                problem(path, .receiptNumberNotBelowNext(number: r.number, next: state.nextReceipt))
            }
        }
    }

    /// `format.json` says what the store is; without it (or with another format) nothing else
    /// can be trusted, and nothing is written.
    static func checkFormatFile(_ store: Store) -> (String, DoctorFinding)? {
        let path = StoreLayout.formatFile
        guard store.fs.fileExists(store.layout.absolute(path)) else {
            let survey = StoreSurvey(root: store.layout.root, fs: store.fs)
            return (path, survey.isUnused ? .formatMissingAfterInterruptedInit : .formatMissing(holds: survey.summary))
        }
        do {
            try Store.checkFormat(store.layout, store.fs)
            return nil
        } catch {
            return (path, DoctorFinding(error))
        }
    }

    /// A purge or table rm whose item files are not all removed yet (`ItemRemoval`), or the lists
    /// of one that never happened: still on disk once doctor has tried to finish them.
    mutating func checkRemoval() {
        let store = self.store
        guard store.fs.fileExists(store.layout.absolute(ItemRemoval.markerFile)) else {
            return problem(ItemRemoval.folder, .removalListsLeft(notWritable: notWritable))
        }
        guard let marker = attempt(ItemRemoval.markerFile, { () throws(StoreError) in try ItemRemoval.marker(store) }) else { return }
        problem(ItemRemoval.markerFile, .removalUnfinished(command: marker.command.rawValue, table: marker.table, notWritable: notWritable))
    }
}
