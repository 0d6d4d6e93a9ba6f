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

    /// Streams: the queue is taken as file names, and each operation is read, printed and
    /// dropped in turn (100,000 pending operations in flat memory); `--json` is written one
    /// element at a time, in the same bytes as one `canonicalBytes` of the whole object.
    static func run(_ args: ParsedArguments, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        _ = try positionals(args, min: 0, max: 0, names: "")
        let store = try StoreAccess.open(ctx, writable: false, command: name)
        try StoreAccess.read(store, ctx) { s throws(CLIError) in
            try StoreAccess.startStreaming(ctx)
            let table = args.value("--table") == nil ? nil : try StoreAccess.table(args, s, create: false)
            let names: [OperationFileName], receipts: [Receipt]
            do throws(StoreError) {
                (names, receipts) = (try s.operationNames().filter { table == nil || $0.table == table },
                                     try s.receipts().filter { table == nil || $0.table == table })
            } catch { throw .store(error) }
            let json = args.has("--json")
            let short = json ? TableShortIDs() : try TableShortIDs.load(s, tables: Array(Set(names.map(\.table))) + receipts.map(\.table))
            if json { ctx.console.outRaw(Array("{\n  \"pending\": ".utf8)) } else {
                ctx.console.out(names.isEmpty ? "No pending operations." : "Pending operations (queue order):")
            }
            var shown = 0
            for name in names {
                let read: PendingOperation?
                do throws(StoreError) { read = try s.operation(name) } catch { throw .store(error) }
                guard let op = read else { continue }
                if json {
                    ctx.console.outRaw(Array((shown == 0 ? "[\n    " : ",\n    ").utf8) + op.json.canonicalBytes(nestedAt: 2))
                } else {
                    var line = "  #\(op.sequence)  \(op.kind.rawValue)  \(op.table)  \(short.of(op.id, table: op.table))  \(summary(op))"
                    if op.isSealed { line += "  (sent, awaiting confirmation)" }
                    ctx.console.out(line)
                }
                shown += 1
            }
            let newestFirst = Array(receipts.reversed())
            if json {
                ctx.console.outRaw(Array((shown == 0 ? "[]" : "\n  ]").utf8))
                let rest = JSONValue.array(newestFirst.map(\.json)).canonicalBytes(nestedAt: 1)
                ctx.console.outRaw(Array(",\n  \"receipts\": ".utf8) + rest + Array("\n}\n".utf8))
                return
            }
            ctx.console.out("")
            ctx.console.out(receipts.isEmpty ? "No receipts." : "Receipts (newest first):")
            for r in newestFirst {
                ctx.console.out("  \(r.number)  \(r.at)  \(r.decision.rawValue) \(r.rule)  \(r.table)  \(short.of(r.id, table: r.table))  \(lost(r))")
            }
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
