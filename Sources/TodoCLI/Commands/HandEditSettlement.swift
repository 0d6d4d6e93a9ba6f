import TodoBasics
import TodoModel
import TodoStore

/// `todo edit ID --adopt` and `todo edit ID --discard`: settle an edit made by hand to an item's
/// file or to the copy its last operation sends (`HandEdit`), so that the store and the files
/// agree again. Both are exact, because the item file keeps what todo wrote (`ms_written`).
enum HandEditSettlement {
    /// The item file's edit becomes a local change, as `todo edit` with those fields would make it
    /// (queued, or folded into the pending operation, with its receipt); the base is the copy todo
    /// wrote, which for an item without pending operations is the last server copy. An edit of the
    /// operation's copy to send is kept, and the item takes those fields.
    static func adopt(_ idArg: String, table: String?, json: Bool, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let edit = try LocalEdit.begin(ctx, table: table, command: "edit", idArgument: idArg, settling: true)
        let short = ShortID.of(edit.id)
        let (file, itemChanged, operation) = try state(edit)
        guard let file, itemChanged || operation != nil else {
            ctx.console.out("\(short) has no edits by hand; nothing to adopt")
            return ExitCode.ok
        }
        if itemChanged, let operation {
            throw CLIError(.failure, "both the item file of \(short) and its operation #\(operation.sequence) were edited by hand, differently",
                           hint: "put one of them back as it was; 'todo edit \(short) --discard' puts back both (a receipt keeps your values)")
        }
        if edit.history.hasConflict {
            throw CLIError(.failure, "item \(file.item.id) has an unresolved conflict, so its edit by hand cannot become a change",
                           hint: "'todo edit \(short) --discard' puts back what todo wrote (a receipt keeps your values); then settle the conflict with 'todo resolve \(short)', writing your values into the resolution if you want them")
        }
        if let operation {
            var tx: StoreTransaction
            do { tx = try edit.store.transaction() } catch { throw .store(error) }
            tx.putItem(Item(id: file.item.id, fields: operation.item.fields, system: file.item.system), table: edit.table)
            try StoreAccess.commit(tx, edit.store, ctx)
            ctx.console.out("adopted the edit of \(short)'s operation #\(operation.sequence): the item now shows what it sends")
            return ExitCode.ok
        }
        // As `todo edit` would change the item as todo wrote it into the fields of the file.
        var history = edit.history
        history.item = file.asWritten
        let asWritten = LocalEdit(store: edit.store, table: edit.table, id: edit.id, history: history, handEdits: [])
        let plan = try asWritten.commit(.update(file.item.fields), ctx)
        if json {
            ctx.console.outRaw(edit.json(plan).canonicalBytes())
        } else {
            ctx.console.out(edit.describe(plan, verb: "adopted the edit of"))
        }
        return ExitCode.ok
    }

    /// The item file, and the operation's copy to send, go back to what todo wrote. The values
    /// they held are kept in a `discard` receipt, so nothing is lost.
    static func discard(_ idArg: String, table: String?, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let edit = try LocalEdit.begin(ctx, table: table, command: "edit", idArgument: idArg, settling: true)
        let short = ShortID.of(edit.id)
        let (file, itemChanged, operation) = try state(edit)
        guard let file, let written = file.written, itemChanged || operation != nil else {
            ctx.console.out("\(short) has no edits by hand; nothing to discard")
            return ExitCode.ok
        }
        let now = ctx.clock.nowText()
        var tx: StoreTransaction
        do { tx = try edit.store.transaction() } catch { throw .store(error) }
        var numbers: [Int] = []
        if itemChanged {
            tx.putItem(file.asWritten, table: edit.table)
            numbers.append(tx.addReceipt(Receipt(at: now, decision: .discard, rule: "item", table: edit.table, id: file.item.id,
                                                 operation: nil, kept: file.asWritten.userCopy,
                                                 lost: ["client": OperationLog.replacedValues(old: file.item.fields, new: written)],
                                                 note: "an edit made by hand to the item file")).number)
        }
        if var operation {
            let sent = operation.item.fields
            operation.item = Item(id: operation.item.id, fields: written)
            tx.putOperation(operation)
            numbers.append(tx.addReceipt(Receipt(at: now, decision: .discard, rule: "operation", table: edit.table, id: operation.id,
                                                 operation: operation.reference, kept: operation.item,
                                                 lost: ["client": OperationLog.replacedValues(old: sent, new: written)],
                                                 note: "an edit made by hand to the operation's copy to send")).number)
        }
        try StoreAccess.commit(tx, edit.store, ctx)
        let receipts = numbers.map { "#\($0)" }.joined(separator: " and ")
        ctx.console.out("put back \(short) as todo wrote it; the values you wrote are in receipt \(receipts) (see 'todo log')")
        return ExitCode.ok
    }

    /// The item file, whether its fields were edited, and the last operation when its copy to send was.
    private static func state(_ edit: LocalEdit) throws(CLIError) -> (ItemFile?, Bool, PendingOperation?) {
        let file: ItemFile?
        do { file = try edit.store.itemFile(table: edit.table, id: edit.id) } catch { throw .store(error) }
        var itemChanged = false
        var operation: PendingOperation? = nil
        for e in edit.handEdits {
            switch e.subject {
            case .item: itemChanged = true
            case .operation(let sequence, _): operation = edit.history.operations.first { $0.sequence == sequence }
            }
        }
        return (file, itemChanged, operation)
    }
}
