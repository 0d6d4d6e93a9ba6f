import TodoBasics
import TodoModel
import TodoStore

/// `todo undo`: puts back the item's state from before the last local change (`UndoRecord`),
/// while that change is still only here. What the undone change had set is kept in an `undo`
/// receipt, so an undo loses nothing either.
struct UndoCommand: Command {
    static let name = "undo"
    static let summary = "take back the last local change that was not pushed"
    static let usage = "undo [--json]"
    static let discussion = """
        Puts the item that the last add, edit, done, undone or rm changed back as it was before
        (its copy and its pending operations), and prints what it did. Run it again to take back
        the change before that (up to 20). Only changes that are still only here: once a push sent
        the change, or a pull, resolve or edit by hand changed the item since, undo refuses and
        changes nothing. The values the undone change had set are kept in an 'undo' receipt
        (see 'todo log').
        """
    static let options: [OptionSpec] = [.json]

    struct Options: Equatable {
        var json = false
    }

    static func parse(_ args: ParsedArguments) throws(CLIError) -> Options {
        _ = try positionals(args, min: 0, max: 0, names: "")
        return Options(json: args.has("--json"))
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let store = try StoreAccess.open(ctx, writable: true, command: name)
        store.keepsPendingIndex = true
        let log: UndoLog
        do { log = try store.undoLog() } catch { throw .store(error) }
        guard let last = log.records.last else {
            throw CLIError(.failure, "nothing to undo: no local change (add, edit, done, undone, rm) is recorded here",
                           hint: "'todo log' lists the pending operations and receipts")
        }
        let short = ShortIDs.around(last.id, table: last.table, in: store).of(last.id)
        let what = "the last change, 'todo \(last.command) \(short)' (\(last.at))"
        let handEdits = HandEditLog()
        store.handEditLog = handEdits
        let history: ItemHistory
        do { history = try store.history(table: last.table, id: last.id) } catch { throw .store(error) }
        store.handEditLog = nil
        if !handEdits.all.isEmpty { throw StoreAccess.refuse(handEdits.all) }
        let now = ItemState(item: history.item, operations: history.operations)
        if history.hasConflict || now != last.after { throw stale(what, last, now) }

        var tx: StoreTransaction
        do { tx = try store.transaction() } catch { throw .store(error) }
        for op in last.after.operations { tx.removeOperation(op) }
        for op in last.before.operations { tx.putOperation(op) }
        if let item = last.before.item { tx.putItem(item, table: last.table) } else { tx.removeItem(table: last.table, id: last.id) }
        let undone = last.after.item?.fields ?? [:]
        let lost = last.after.item == nil ? [:] : OperationLog.replacedValues(old: undone, new: last.before.item?.fields ?? [:])
        tx.addReceipt(Receipt(at: ctx.clock.nowText(), decision: .undo, rule: last.command, table: last.table, id: last.id,
                              operation: last.after.operations.last?.reference, kept: last.before.item, lost: ["client": lost],
                              note: "'todo \(last.command)' of \(last.at) taken back"))
        tx.putUndoLog(UndoLog(records: Array(log.records.dropLast())))
        try StoreAccess.commit(tx, store, ctx)
        if options.json {
            ctx.console.outRaw((["table": .string(last.table), "id": .string(last.id), "command": .string(last.command),
                                 "before": JSONOutput.state(last.before), "after": JSONOutput.state(last.after)] as JSONValue).canonicalBytes())
        } else {
            ctx.console.out("undid 'todo \(last.command) \(short)' (\(last.at))")
            for line in UndoReport.lines(last) { ctx.console.out("  " + line) }
        }
        return ExitCode.ok
    }

    /// Why the last change can no longer be undone: it was sent, or the item changed since.
    private static func stale(_ what: String, _ last: UndoRecord, _ now: ItemState) -> CLIError {
        let current = Dictionary(now.operations.map { ($0.sequence, $0) }, uniquingKeysWith: { a, _ in a })
        for op in last.after.operations {
            guard let found = current[op.sequence] else {
                return CLIError(.failure, "\(what), was pushed already (its \(op.kind.rawValue) #\(op.sequence) is no longer pending); undo takes back only changes not yet pushed",
                                hint: "change the item again, e.g. with 'todo edit' or 'todo rm'")
            }
            if found.isSealed {
                return CLIError(.failure, "\(what), may already be on the server: a push sent its \(op.kind.rawValue) #\(op.sequence) and did not hear back",
                                hint: "run 'todo push' to settle it, then change the item again")
            }
        }
        return CLIError(.failure, "\(what) cannot be undone: the item changed since (a pull, a resolve or another command), and undo would overwrite that",
                        hint: "'todo diff' shows the item against its server copy; change it again as you want it")
    }
}

/// The lines `todo undo` prints: what went back, field by field and operation by operation.
enum UndoReport {
    static func lines(_ r: UndoRecord) -> [String] {
        var lines: [String] = []
        switch (r.after.item, r.before.item) {
        case (nil, nil): break
        case (.some, nil): lines.append("the item is gone again")
        case (nil, .some): lines.append("the item is back")
        case (.some(let after), .some(let before)):
            for name in Set(after.fields.keys).union(before.fields.keys).sorted() where after.fields[name] != before.fields[name] {
                lines.append("\(name): \(text(after.fields[name])) -> \(text(before.fields[name]))")
            }
        }
        let before = Dictionary(r.before.operations.map { ($0.sequence, $0) }, uniquingKeysWith: { a, _ in a })
        let after = Dictionary(r.after.operations.map { ($0.sequence, $0) }, uniquingKeysWith: { a, _ in a })
        for op in r.after.operations where before[op.sequence] == nil {
            lines.append("pending \(op.kind.rawValue) #\(op.sequence) dropped")
        }
        for op in r.before.operations where after[op.sequence] != op {
            lines.append("pending \(op.kind.rawValue) #\(op.sequence) back as it was")
        }
        return lines
    }

    private static func text(_ value: JSONValue?) -> String { value?.compactText ?? "(none)" }
}
