import TodoModel
import TodoStore

struct ShowCommand: Command {
    static let name = "show"
    static let summary = "show one item"
    static let usage = "show ID [--table NAME] [--json]"
    static let discussion = "Shows an item's fields, its server version, its pending operations and any open conflict."
    static let options: [OptionSpec] = [.table, .json]

    struct Options: Equatable {
        /// ID, as given: a number, an id or a prefix of one.
        var id: String
        var table: String?
        var json = false
    }

    static func parse(_ args: ParsedArguments) throws(CLIError) -> Options {
        let id = try positionals(args, min: 1, max: 1, names: "ID")[0]
        return Options(id: id, table: args.value("--table"), json: args.has("--json"))
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let idArg = options.id
        let store = try StoreAccess.open(ctx, writable: false, command: name)
        let (table, id, history, conflict, edits, short, number) = try StoreAccess.read(store, ctx) { s throws(CLIError) in
            let table = try StoreAccess.table(options.table, s, create: false)
            let id = try StoreAccess.resolveID(idArg, table: table, in: s)
            let history: ItemHistory
            let edits: [HandEdit]
            let conflict: Conflict?
            do throws(StoreError) {
                history = try s.history(table: table, id: id)
                edits = s.handEdits(try s.itemFile(table: table, id: id), operations: history.operations, table: table)
                conflict = try s.conflict(table: table, id: id)
            } catch { throw .store(error) }
            // Short ids (every id of the table) only for the message that needs one.
            let short = history.item == nil ? ShortIDs.around(id, table: table, in: s) : ShortIDs(keys: [])
            return (table, id, history, conflict, edits, short, s.itemNumber(table: table, id: id))
        }
        guard let item = history.item else {
            let what = history.operations.last?.kind == .delete ? "it is deleted locally (pending delete)" : "it has no local copy"
            throw CLIError(.failure, "no such item \(id): \(what)", hint: "see 'todo status' and 'todo diff \(short.of(id))'")
        }
        if options.json {
            ctx.console.outRaw(JSONOutput.item(item).canonicalBytes())
            return ExitCode.ok
        }
        var rows: [(String, String)] = [("id", item.id)]
        if let number { rows.append(("number", String(number))) }
        rows.append(("table", table))
        for name in item.fields.keys.sorted() { rows.append((name, item.fields[name]!.compactText)) }
        rows.append(("version", item.system.version ?? "(never synced)"))
        if let c = item.system.createdAt { rows.append(("createdAt", c)) }
        if let u = item.system.updatedAt { rows.append(("updatedAt", u)) }
        for op in history.operations {
            rows.append(("pending", "\(op.kind.rawValue) #\(op.sequence)\(op.isSealed ? " (sent, awaiting confirmation)" : "")"))
        }
        if let conflict { rows.append(("conflict", conflict.kindDescription)) }
        for edit in edits { rows.append(("edited by hand", edit.summary + " (not recorded)")) }
        let width = rows.map(\.0.count).max() ?? 0
        for (k, v) in rows { ctx.console.out(k + ":" + String(repeating: " ", count: width - k.count + 2) + v) }
        return ExitCode.ok
    }
}
