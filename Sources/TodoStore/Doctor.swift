import TodoBasics
import TodoModel

/// `todo doctor`: checks every file of the store and every invariant of sync.md §2.2.2, and
/// reports every problem it finds (it does not stop at the first). It changes nothing.
public struct DoctorReport: Sendable {
    public struct Problem: Sendable, Equatable {
        public var path: String
        public var message: String
    }

    public var problems: [Problem] = []
    public var items = 0
    public var operations = 0
    public var conflicts = 0
    public var receipts = 0
    public var tables = 0
}

public enum Doctor {
    /// `notWritable`: why the store could not be opened for writing (`Store.openForCheck`), so an
    /// unfinished commit, if any, is shown through its journal and reported with that reason.
    public static func check(_ store: Store, notWritable: StoreError? = nil) -> DoctorReport {
        var report = DoctorReport()
        func problem(_ path: String, _ message: String) {
            report.problems.append(.init(path: store.displayPath(path), message: message))
        }
        func attempt<T>(_ path: String, _ body: () throws(StoreError) -> T?) -> T? {
            do { return try body() } catch {
                if case .corrupt(_, let reason) = error { problem(path, reason) } else { problem(path, error.message) }
                return nil
            }
        }

        checkFormatFile(store, problem)
        let state = attempt(StoreLayout.stateFile) { () throws(StoreError) in try store.state() }
        _ = attempt(StoreLayout.configFile) { () throws(StoreError) in try store.config() }
        let known: Set<String> = [StoreLayout.formatFile, StoreLayout.configFile, StoreLayout.stateFile, StoreLayout.lockFile,
                                  StoreLayout.tablesDirectory, StoreLayout.operationsDirectory,
                                  StoreLayout.conflictsDirectory, StoreLayout.receiptsDirectory]
        for name in (try? store.fs.listDirectory(store.layout.root)) ?? [] where !known.contains(name) && !(name.hasPrefix(".") && !StoreLayout.isTemporary(name)) {
            if name == StoreLayout.journalFile {
                problem(name, unfinishedCommit(store, notWritable: notWritable))
            } else {
                problem(name, "unexpected file")
            }
        }

        // Tables and items.
        var itemsByKey: [String: Item] = [:]
        let tables = (try? store.tables()) ?? []
        report.tables = tables.count
        for table in tables {
            let configPath = store.layout.tableConfig(table)
            if let config = attempt(configPath, { () throws(StoreError) in try store.tableConfig(table) }) {
                if config.name != table { problem(configPath, "\"name\" is \"\(config.name)\" but the folder is '\(table)'") }
            } else if !store.fs.fileExists(store.layout.absolute(configPath)) {
                problem(configPath, "missing")
            }
            let dir = store.layout.itemsDirectory(table)
            for name in (try? store.fs.listDirectory(store.layout.absolute(dir))) ?? [] {
                let path = dir + "/" + name
                if StoreLayout.isTemporary(name) { problem(path, "leftover temporary file"); continue }
                guard let item = attempt(path, { () throws(StoreError) in try store.decode(path, Item.init(json:)) }) else { continue }
                report.items += 1
                if IDEncoding.fileName(for: item.id) + ".json" != name {
                    problem(path, "the file name does not match the id \"\(item.id)\"")
                }
                if item.system.deleted != nil { problem(path, "an item file never holds ms_deleted") }
                if let p = ItemID.problem(item.id) { problem(path, "invalid id: \(p)") }
                itemsByKey["\(table)/\(ItemID.key(item.id))"] = item
            }
        }

        // Operations.
        var opsByKey: [String: [PendingOperation]] = [:]
        var sequences = Set<Int>()
        for name in (try? store.fs.listDirectory(store.layout.absolute(StoreLayout.operationsDirectory))) ?? [] {
            let path = StoreLayout.operationsDirectory + "/" + name
            if StoreLayout.isTemporary(name) { problem(path, "leftover temporary file"); continue }
            if name.hasPrefix(".") { continue }
            guard let parsed = OperationFileName(parsing: name) else {
                problem(path, "not an operation file name; expected <sequence>.<kind>.<table>.<id>.json"); continue
            }
            guard let op = attempt(path, { () throws(StoreError) in try store.operation(parsed) }) else { continue }
            report.operations += 1
            if !sequences.insert(op.sequence).inserted { problem(path, "sequence \(op.sequence) is used twice") }
            if let state, op.sequence >= state.nextSequence {
                problem(path, "sequence \(op.sequence) is not below nextSequence \(state.nextSequence) in state.json")
            }
            if !tables.contains(op.table) { problem(path, "table '\(op.table)' does not exist in this replica") }
            opsByKey["\(op.table)/\(ItemID.key(op.id))", default: []].append(op)
        }

        // Conflicts.
        var conflictKeys: [String: Conflict] = [:]
        for name in (try? store.fs.listDirectory(store.layout.absolute(StoreLayout.conflictsDirectory))) ?? [] {
            let path = StoreLayout.conflictsDirectory + "/" + name
            if StoreLayout.isTemporary(name) { problem(path, "leftover temporary file"); continue }
            if name.hasPrefix(".") { continue }
            guard let c = attempt(path, { () throws(StoreError) in try store.decode(path, Conflict.init(json:)) }) else { continue }
            report.conflicts += 1
            if store.layout.conflict(c.table, c.id) != path { problem(path, "the file name does not match table '\(c.table)' and id \"\(c.id)\"") }
            let key = "\(c.table)/\(ItemID.key(c.id))"
            conflictKeys[key] = c
            if !(opsByKey[key] ?? []).contains(where: { $0.sequence == c.operation.sequence }) {
                problem(path, "its operation #\(c.operation.sequence) is not pending")
            }
        }

        // Invariants per item (sync.md §2.2.2).
        for (key, unsorted) in opsByKey {
            let ops = unsorted.sorted { $0.sequence < $1.sequence }
            let last = ops.last!
            let path = store.layout.operation(last)
            for (i, op) in ops.enumerated() {
                if op.kind == .insert && i > 0 { problem(store.layout.operation(op), "an insert must be the item's first operation") }
                // Behind an insert (sealed, or unsealed by a conflict) the base is that insert's
                // provisional one: null until the insert's push brings the server copy (§3.5.1).
                if op.kind != .insert && op.base == nil && ops.first?.kind != .insert {
                    problem(store.layout.operation(op), "\(op.kind == .update ? "an update" : "a delete") needs a base")
                }
                if op.kind == .delete && i < ops.count - 1 { problem(store.layout.operation(ops[i + 1]), "an operation follows a delete") }
                if !op.isSealed && i < ops.count - 1 && conflictKeys[key]?.operation.sequence != op.sequence {
                    problem(store.layout.operation(op), "an unsealed operation must be the item's last")
                }
            }
            let item = itemsByKey[key]
            if last.kind == .delete, item != nil { problem(path, "the item is deleted here but its item file exists") }
            if last.kind != .delete, !last.isSealed, let item, !item.sameUserFields(as: last.item) {
                problem(path, "\"item\" differs from the item file \(store.layout.item(last.table, last.id))")
            }
            if last.kind != .delete, item == nil { problem(path, "the item file is missing") }
        }

        // Receipts.
        for name in (try? store.fs.listDirectory(store.layout.absolute(StoreLayout.receiptsDirectory))) ?? [] {
            let path = StoreLayout.receiptsDirectory + "/" + name
            if StoreLayout.isTemporary(name) { problem(path, "leftover temporary file"); continue }
            if name.hasPrefix(".") { continue }
            guard let r = attempt(path, { () throws(StoreError) in try store.decode(path, Receipt.init(json:)) }) else { continue }
            report.receipts += 1
            if store.layout.receipt(r) != path { problem(path, "the file name does not match its number, decision, table and id") }
            if let state, r.number >= state.nextReceipt {
                problem(path, "receipt number \(r.number) is not below nextReceipt \(state.nextReceipt) in state.json")
            }
        }
        report.problems.sort { ($0.path, $0.message) < ($1.path, $1.message) }
        return report
    }

    /// `format.json` says what the store is; without it (or with another format) nothing else
    /// can be trusted, and nothing is written.
    static func checkFormatFile(_ store: Store, _ problem: (String, String) -> Void) {
        let path = StoreLayout.formatFile
        guard store.fs.fileExists(store.layout.absolute(path)) else {
            let survey = StoreSurvey(root: store.layout.root, fs: store.fs)
            if survey.isUnused {
                problem(path, "missing: this looks like an interrupted 'todo init' (nothing was committed here yet); run 'todo init' again")
            } else {
                problem(path, "missing: without it this .todo is not a complete replica and no other todo command opens it "
                        + "(it holds \(survey.summary)); if the other files are intact, recreate it holding {\"format\": 1}")
            }
            return
        }
        do {
            try Store.checkFormat(store.layout, store.fs)
        } catch {
            if case .corrupt(_, let reason) = error { problem(path, reason) } else { problem(path, error.message) }
        }
    }

    /// The message for a journal still on disk once doctor has tried to finish it.
    static func unfinishedCommit(_ store: Store, notWritable: StoreError?) -> String {
        let why = notWritable.map { ": \($0.message)" } ?? ""
        return "a committed change is not written to its files yet\(why); the other checks see the store as it will be once it is, "
            + "and any todo command that can write the folder finishes it"
    }
}
