import TodoModel
import TodoStore

struct LogCommand: Command {
    static let name = "log"
    static let summary = "list pending operations, then receipts (newest first)"
    static let usage = "log [--table NAME] [--json]"
    static let discussion = """
        Lists the pending operations in queue order (what 'todo push' will send), then the receipts:
        every automatic decision (collapse, merge, ...) and resolution, newest first, with the values
        it replaced. A lost value can be put back with 'todo edit ID --set FIELD=JSON'.
        """
    static let options: [OptionSpec] = [OptionSpec("--table", .value("NAME"), "only this table"), .json]

    static func run(_ args: ParsedArguments, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        _ = try positionals(args, min: 0, max: 0, names: "")
        let store = try StoreAccess.open(ctx, writable: false, command: name)
        let (ops, receipts, short) = try StoreAccess.read(store, ctx) { s throws(CLIError) -> ([PendingOperation], [Receipt], TableShortIDs) in
            let table = args.value("--table") == nil ? nil : try StoreAccess.table(args, s, create: false)
            let ops: [PendingOperation], receipts: [Receipt]
            do throws(StoreError) { (ops, receipts) = (try s.operations(table: table), try s.receipts().filter { table == nil || $0.table == table }) } catch { throw .store(error) }
            return (ops, receipts, try TableShortIDs.load(s, tables: ops.map(\.table) + receipts.map(\.table)))
        }
        let newestFirst = Array(receipts.reversed())
        if args.has("--json") {
            let value: JSONValue = ["pending": .array(ops.map(\.json)), "receipts": .array(newestFirst.map(\.json))]
            ctx.console.outRaw(value.canonicalBytes())
            return ExitCode.ok
        }
        ctx.console.out(ops.isEmpty ? "No pending operations." : "Pending operations (queue order):")
        for op in ops {
            var line = "  #\(op.sequence)  \(op.kind.rawValue)  \(op.table)  \(short.of(op.id, table: op.table))  \(summary(op))"
            if op.isSealed { line += "  (sent, awaiting confirmation)" }
            ctx.console.out(line)
        }
        ctx.console.out("")
        ctx.console.out(receipts.isEmpty ? "No receipts." : "Receipts (newest first):")
        for r in newestFirst {
            ctx.console.out("  \(r.number)  \(r.at)  \(r.decision.rawValue) \(r.rule)  \(r.table)  \(short.of(r.id, table: r.table))  \(lost(r))")
        }
        return ExitCode.ok
    }

    /// What an operation changes, in a few words.
    static func summary(_ op: PendingOperation) -> String {
        switch op.kind {
        case .insert: return quoted(op.item.text)
        case .delete: return "was " + quoted(op.item.text)
        case .update:
            let changed = OperationLog.replacedValues(old: op.base?.fields ?? [:], new: op.item.fields).keys.sorted()
            return changed.isEmpty ? "no field changes" : "changes " + changed.joined(separator: ", ")
        }
    }

    static func lost(_ r: Receipt) -> String {
        let parts = r.lost.keys.sorted().compactMap { side -> String? in
            guard let values = r.lost[side], !values.isEmpty else { return nil }
            let fields = values.keys.sorted().map { "\($0)=\(values[$0]!.compactText)" }
            return "lost \(side): " + fields.joined(separator: " ")
        }
        let text = parts.isEmpty ? "nothing lost" : parts.joined(separator: "; ")
        return r.note.map { text + " (\($0))" } ?? text
    }

    private static func quoted(_ s: String?) -> String { s.map { JSONValue.string($0).compactText } ?? "(no text)" }
}
