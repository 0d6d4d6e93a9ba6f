import TodoBasics
import TodoModel
import TodoStore

/// The flow every local change shares (add, edit, done, undone, rm): lock, find the item and its
/// operations, apply the collapse rules, commit once, report.
struct LocalEdit {
    let store: Store
    let table: String
    let id: String
    let history: ItemHistory
    /// Edits made outside todo to the item's files: a change refuses to build on them
    /// (`begin`); `edit --adopt` and `--discard` settle them (`HandEditCommands`).
    let handEdits: [HandEdit]
    /// The command, for `todo undo` to name it (`UndoRecord.command`).
    var command = "edit"

    /// Opens the store for writing and loads what the rules need, in the table `--table` names
    /// (nil: the default). `id` nil means a new item (`add`), whose id is resolved by the caller.
    /// Refuses an item whose files were edited by hand, unless `settling` (then `handEdits` lists them).
    static func begin(_ ctx: CommandContext, table named: String?, command: String, idArgument: String?,
                      newID: String? = nil, settling: Bool = false) throws(CLIError) -> LocalEdit {
        let store = try StoreAccess.open(ctx, writable: true, command: command)
        store.keepsPendingIndex = true
        let table = try StoreAccess.table(named, store, create: idArgument == nil)
        let id: String
        if let idArgument {
            id = try StoreAccess.resolveID(idArgument, table: table, in: store)
        } else {
            id = newID!
        }
        let log = HandEditLog()
        store.handEditLog = log
        defer { store.handEditLog = nil }
        let history: ItemHistory
        do { history = try store.history(table: table, id: id) } catch { throw .store(error) }
        if !settling && !log.all.isEmpty { throw StoreAccess.refuse(log.all) }
        return LocalEdit(store: store, table: table, id: id, history: history, handEdits: log.all, command: command)
    }

    /// Applies the rules and commits. Refusals change nothing and exit 1.
    func commit(_ change: LocalChange, _ ctx: CommandContext) throws(CLIError) -> ChangePlan {
        var tx: StoreTransaction
        do { tx = try store.transaction() } catch { throw .store(error) }
        let plan: ChangePlan
        do {
            plan = try OperationLog.record(change, on: history, nextSequence: tx.state.nextSequence, now: ctx.clock.nowText())
        } catch {
            let hint: String
            let short = shortIDs().of(history.item?.id ?? history.operations.last?.id ?? id)
            switch error {
            case .conflictOpen: hint = "see the copies with 'todo diff \(short)'"
            case .queuedForDeletion: hint = "run 'todo push', then add it again"
            case .alreadyExists, .alreadyQueuedForInsertion: hint = "change it with 'todo edit \(short)'"
            case .noSuchItem: hint = "list the items with 'todo list --all'"
            }
            throw CLIError(.failure, error.message, hint: hint)
        }
        if plan.outcome == .unchanged { return plan }
        // A table's first item creates it. (A failed read must not pass for "no such table": that
        // would write a fresh table.json over the stored queries and tokens.)
        let existing: String?
        do { existing = try store.resolveTable(table) } catch { throw .store(error) }
        if existing == nil { tx.putTableConfig(TableConfig(name: table)) }
        tx.apply(plan, table: table, id: id)
        try recordUndo(plan, &tx, ctx)
        try StoreAccess.commit(tx, store, ctx)
        return plan
    }

    /// Keeps the item's state before and after the change in `undo.json`, in the change's own
    /// commit, so that `todo undo` can put the state before back (`UndoRecord`).
    private func recordUndo(_ plan: ChangePlan, _ tx: inout StoreTransaction, _ ctx: CommandContext) throws(CLIError) {
        let replaced = Set(plan.removals.map(\.sequence)).union(plan.writes.map(\.sequence))
        let after = ItemState(item: plan.item, operations: history.operations.filter { !replaced.contains($0.sequence) } + plan.writes)
        let record = UndoRecord(command: command, at: ctx.clock.nowText(), table: table, id: history.item?.id ?? plan.item?.id ?? id,
                                before: ItemState(item: history.item, operations: history.operations), after: after)
        do { try tx.addUndoRecord(record, in: store) } catch { throw .store(error) }
    }

    /// The item's short id as `list` shows it, found against the one id closest to it (a failed
    /// read only lengthens nothing: 4 characters).
    func shortIDs() -> ShortIDs { ShortIDs.around(id, table: table, in: store) }

    /// The line a change prints, with the id as `list` shows it.
    func describe(_ plan: ChangePlan, verb: String) -> String {
        Self.describe(plan, verb: verb, id: id, short: shortIDs())
    }

    /// The line a change prints, e.g. "updated 3f9c2b1e (update #42 queued)".
    static func describe(_ plan: ChangePlan, verb: String, id: String, short: ShortIDs) -> String {
        let short = short.of(id)
        switch plan.outcome {
        case .unchanged:
            return "\(short) unchanged; nothing to do"
        case .queued(let kind, let sequence):
            return "\(verb) \(short) (\(kind.rawValue) #\(sequence) queued)"
        case .collapsed(let rule, let sequence):
            switch rule {
            case "insert+delete": return "\(verb) \(short) (its pending insert was never sent, so both are dropped)"
            case "update+delete": return "\(verb) \(short) (pending update #\(sequence ?? 0) became a delete)"
            default:
                if let sequence { return "\(verb) \(short) (folded into pending \(rule.split(separator: "+")[0]) #\(sequence))" }
                return "\(verb) \(short) (back to its last synced copy; nothing left to push)"
            }
        }
    }

    /// The item's number on this replica (`ItemNumbers`): given by this command's commit, or
    /// found in the index of ids; nil for an item without one.
    func number() -> Int? {
        store.givenNumbers[table]?[ItemID.key(id)] ?? store.itemNumber(table: table, id: id)
    }

    /// `--json` output of a change: a stable object (README).
    func json(_ plan: ChangePlan) -> JSONValue {
        Self.json(plan, table: table, id: id, number: number())
    }

    static func json(_ plan: ChangePlan, table: String, id: String, number: Int?) -> JSONValue {
        let outcome: String
        var operation: JSONValue = .null
        switch plan.outcome {
        case .unchanged:
            outcome = "unchanged"
        case .queued(let kind, let sequence):
            outcome = "queued"
            operation = JSONOutput.reference(OperationReference(kind: kind, sequence: sequence))
        case .collapsed(let rule, let sequence):
            outcome = "collapsed " + rule
            if let op = plan.writes.first(where: { $0.sequence == sequence }) { operation = JSONOutput.reference(op.reference) }
        }
        return ["table": .string(table), "id": .string(id), "number": number.map { .number(Double($0)) } ?? .null,
                "outcome": .string(outcome), "operation": operation, "item": JSONOutput.item(plan.item)]
    }
}

/// `FIELD=JSON` assignments and the checks every local change applies to fields (sync.md §10.3).
enum FieldAssignment {
    static func parse(_ text: String) throws(CLIError) -> (String, JSONValue) {
        guard let eq = text.firstIndex(of: "=") else {
            throw CLIError(.usage, "'\(text)' is not FIELD=JSON", hint: "for example: --set priority=3 or --set 'note=\"call Bob\"'")
        }
        let name = String(text[..<eq])
        let raw = String(text[text.index(after: eq)...])
        if let problem = FieldName.problem(name) { throw CLIError(.failure, problem, hint: "choose another field name") }
        let value: JSONValue
        do { value = try JSONValue.parse(raw) } catch {
            throw CLIError(.failure, "the value of '\(name)' is not JSON: \(raw)",
                           hint: "quote strings as JSON: --set '\(name)=\"\(raw)\"'")
        }
        try check(name, value)
        return (name, value)
    }

    /// Values are strings, numbers, booleans or null; the todo fields keep their types.
    static func check(_ name: String, _ value: JSONValue) throws(CLIError) {
        switch value {
        case .array, .object:
            throw CLIError(.failure, "the value of '\(name)' is \(value.typeName); values are strings, numbers, booleans or null",
                           hint: "store structured data as a JSON string")
        default: break
        }
        if name == "text", !value.isNull, value.stringValue == nil {
            throw CLIError(.failure, "'text' must be a string, not \(value.typeName)", hint: "use --text or --set 'text=\"...\"'")
        }
        if name == "complete", !value.isNull, value.boolValue == nil {
            throw CLIError(.failure, "'complete' must be true or false, not \(value.typeName)", hint: "use --complete or --incomplete")
        }
    }

    /// Applies assignments in order; `null` removes a field (the replica never stores null).
    static func apply(_ assignments: [(String, JSONValue)], to fields: inout [String: JSONValue]) {
        for (name, value) in assignments {
            if value.isNull { fields[name] = nil } else { fields[name] = value }
        }
    }
}
