import TodoModel
import TodoStore

struct ListCommand: Command {
    static let name = "list"
    static let summary = "list items (incomplete ones by default)"
    static let usage = "list [--all|--done] [--table NAME] [--json]"
    static let discussion = """
        Lists the table's items, oldest first: incomplete ones by default, --done for complete ones,
        --all for every item. A pending local change is shown after the text.
        """
    static let options: [OptionSpec] = [
        OptionSpec("--all", .flag, "every item"),
        OptionSpec("--done", .flag, "complete items only"),
        .table, .json,
    ]

    static func run(_ args: ParsedArguments, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        _ = try positionals(args, min: 0, max: 0, names: "")
        if args.has("--all") && args.has("--done") { throw .usage("--all and --done exclude each other", command: name) }
        let store = try StoreAccess.open(ctx, writable: false, command: name)
        let (table, files, pending, short) = try StoreAccess.read(store, ctx) { s throws(CLIError) -> (String, [ItemFile], [String: OperationFileName], ShortIDs) in
            let table = try StoreAccess.table(args, s, create: false)
            let short = try ShortIDs.load(s, table: table)
            do throws(StoreError) {
                var latest: [String: OperationFileName] = [:]
                for op in try s.operationNames() where op.table == table { latest[op.encodedID] = op }
                return (table, try s.itemFiles(table: table), latest, short)
            } catch { throw .store(error) }
        }
        // Items whose file was edited by hand are listed as they are, marked, and reported.
        let edited = Set(files.filter { $0.handChanges != nil }.map { ItemID.key($0.item.id) })
        for file in files {
            if let changes = file.handChanges {
                StoreAccess.warnHandEdit(HandEdit(table: table, id: file.item.id, path: file.path, subject: .item(changes: changes)), ctx)
            }
        }
        let items = files.map(\.item)
        let shown = items.filter { args.has("--all") || (args.has("--done") ? $0.isComplete : !$0.isComplete) }
        let ordered = order(shown, pending)
        if args.has("--json") {
            ctx.console.outRaw(JSONValue.array(ordered.map(\.json)).canonicalBytes())
            return ExitCode.ok
        }
        let width = ordered.map { short.of($0.id).count }.max() ?? 0
        for item in ordered {
            let mark = item.isComplete ? "[x]" : "[ ]"
            var line = "\(pad(short.of(item.id), width))  \(mark) \(item.text ?? "")"
            if let op = pending[IDEncoding.fileName(for: item.id)] { line += "  (pending \(op.kind.rawValue))" }
            if edited.contains(ItemID.key(item.id)) { line += "  (edited by hand)" }
            ctx.console.out(line)
        }
        return ExitCode.ok
    }

    /// Oldest first: items the server has by creation time, then local-only ones in queue order.
    static func order(_ items: [Item], _ pending: [String: OperationFileName]) -> [Item] {
        items.sorted { a, b in
            switch (a.system.createdAt, b.system.createdAt) {
            case let (x?, y?): return x != y ? x < y : a.id.scalarLess(b.id)
            case (_?, nil): return true
            case (nil, _?): return false
            case (nil, nil):
                let sa = pending[IDEncoding.fileName(for: a.id)]?.sequence ?? Int.max
                let sb = pending[IDEncoding.fileName(for: b.id)]?.sequence ?? Int.max
                return sa != sb ? sa < sb : a.id.scalarLess(b.id)
            }
        }
    }

    private static func pad(_ s: String, _ width: Int) -> String { s + String(repeating: " ", count: max(0, width - s.count)) }
}

struct ShowCommand: Command {
    static let name = "show"
    static let summary = "show one item"
    static let usage = "show ID [--table NAME] [--json]"
    static let discussion = "Shows an item's fields, its server version, its pending operations and any open conflict."
    static let options: [OptionSpec] = [.table, .json]

    static func run(_ args: ParsedArguments, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let idArg = try positionals(args, min: 1, max: 1, names: "ID")[0]
        let store = try StoreAccess.open(ctx, writable: false, command: name)
        let (table, id, history, conflict, edits, short) = try StoreAccess.read(store, ctx) { s throws(CLIError) in
            let table = try StoreAccess.table(args, s, create: false)
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
            let short = history.item == nil ? try ShortIDs.load(s, table: table) : ShortIDs(keys: [])
            return (table, id, history, conflict, edits, short)
        }
        guard let item = history.item else {
            let what = history.operations.last?.kind == .delete ? "it is deleted locally (pending delete)" : "it has no local copy"
            throw CLIError(.failure, "no such item \(id): \(what)", hint: "see 'todo status' and 'todo diff \(short.of(id))'")
        }
        if args.has("--json") {
            ctx.console.outRaw(item.json.canonicalBytes())
            return ExitCode.ok
        }
        var rows: [(String, String)] = [("id", item.id), ("table", table)]
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
