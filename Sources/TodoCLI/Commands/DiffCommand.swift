import TodoModel
import TodoStore

struct DiffCommand: Command {
    static let name = "diff"
    static let summary = "show local changes against the last server copy"
    static let usage = "diff [ID] [--table NAME] [--json]"
    static let discussion = """
        Field by field, each pending change against its base (the server copy it started from). For an
        item with an open conflict, shows the base, client and server copies side by side. An item
        file edited by hand (not recorded as a change) is shown against the copy todo wrote.
        """
    static let options: [OptionSpec] = [.table, .json]

    static func run(_ args: ParsedArguments, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let idArg = try positionals(args, min: 0, max: 1, names: "ID").first
        let store = try StoreAccess.open(ctx, writable: false, command: name)
        let (id, entries) = try StoreAccess.read(store, ctx, quiet: true) { s throws(CLIError) -> (String?, [DiffEntry]) in
            let onlyTable = (args.value("--table") != nil || idArg != nil) ? try StoreAccess.table(args, s, create: false) : nil
            let id = try idArg.map { (arg: String) throws(CLIError) in try StoreAccess.resolveID(arg, table: onlyTable!, in: s) }
            var entries: [DiffEntry]
            do throws(StoreError) { entries = try DiffEntry.load(s, table: onlyTable, id: id) } catch { throw .store(error) }
            for i in entries.indices { if let c = entries[i].conflict { entries[i].resolveHint = ResolveHint.command([c], s) } }
            return (id, entries)
        }
        if let idArg, entries.isEmpty, !args.has("--json") {
            ctx.console.out("\(ShortID.of(id ?? idArg)): no local changes")
            return ExitCode.ok
        }
        if args.has("--json") {
            ctx.console.outRaw(JSONValue.array(entries.map(\.json)).canonicalBytes())
        } else {
            for (i, entry) in entries.enumerated() {
                if i > 0 { ctx.console.out("") }
                for line in DiffRenderer.render(entry) { ctx.console.out(line) }
            }
        }
        return ExitCode.ok
    }
}

/// One item's local change (or conflict), ready to render.
struct DiffEntry {
    var table: String
    var id: String
    var operations: [PendingOperation]
    /// The local item now; nil when deleted locally.
    var local: Item?
    var conflict: Conflict?
    /// Edits made by hand to the item's files, not recorded (issue 15 item 8).
    var handEdits: [HandEdit] = []
    /// The item as todo last wrote it, the base of an edit by hand with no pending operation.
    var written: Item? = nil
    /// The command that settles its conflict (`ResolveHint`), for the human form.
    var resolveHint: String? = nil

    /// The first operation's base: the server copy all local changes started from.
    var base: Item? { conflict?.base ?? operations.first?.base ?? (operations.isEmpty ? written : nil) }

    /// Reads the queue and the conflicts once, then one item at a time: O(n) in the pending
    /// operations (it listed the operations folder once per item, O(n²): 32 s for 8,000).
    static func load(_ store: Store, table: String?, id: String?) throws(StoreError) -> [DiffEntry] {
        if let table, let id {
            let history = try store.history(table: table, id: id)
            return try entry(store, history, conflict: try store.conflict(table: table, id: id)).map { [$0] } ?? []
        }
        func key(_ table: String, _ id: String) -> String { "\(table)/\(ItemID.key(id))" }
        var keys: [(String, String)] = []
        var opsByKey: [String: [PendingOperation]] = [:]
        for op in try store.operations(table: table) {
            let k = key(op.table, op.id)
            if opsByKey[k] == nil { keys.append((op.table, op.id)) }
            opsByKey[k, default: []].append(op)
        }
        var conflicts: [String: Conflict] = [:]
        for c in try store.conflicts() where table == nil || c.table == table {
            let k = key(c.table, c.id)
            if opsByKey[k] == nil && conflicts[k] == nil { keys.append((c.table, c.id)) }
            conflicts[k] = c
        }
        // Then items edited by hand with no pending change (the store may be scanned here).
        var seen = Set(keys.map { key($0.0, $0.1) })
        for e in try store.handEdits(table: table) where seen.insert(key(e.table, e.id)).inserted {
            keys.append((e.table, e.id))
        }
        var entries: [DiffEntry] = []
        for (t, i) in keys {
            let k = key(t, i)
            let history = try store.history(table: t, id: i, operations: opsByKey[k] ?? [])
            if let e = try entry(store, history, conflict: conflicts[k]) { entries.append(e) }
        }
        return entries
    }

    private static func entry(_ store: Store, _ history: ItemHistory, conflict: Conflict?) throws(StoreError) -> DiffEntry? {
        let (t, i) = (history.table, history.id)
        let file = try store.itemFile(table: t, id: i)
        let edits = store.handEdits(file, operations: history.operations, table: t)
        if history.operations.isEmpty && conflict == nil && edits.isEmpty { return nil }
        return DiffEntry(table: t, id: history.operations.first?.id ?? conflict?.id ?? file?.item.id ?? i,
                         operations: history.operations, local: history.item, conflict: conflict,
                         handEdits: edits, written: file?.asWritten)
    }

    var changes: [(field: String, base: JSONValue, local: JSONValue)] {
        let b = base?.fields ?? [:], l = local?.fields ?? [:]
        return Set(b.keys).union(l.keys).sorted().compactMap { f in
            let bv = b[f] ?? .null, lv = l[f] ?? .null
            return bv == lv ? nil : (f, bv, lv)
        }
    }

    var json: JSONValue {
        var o: [String: JSONValue] = [
            "table": .string(table), "id": .string(id),
            "operations": .array(operations.map(\.reference.json)),
            "base": base?.json ?? .null, "local": local?.json ?? .null,
            "changes": .array(changes.map { ["field": .string($0.field), "base": $0.base, "local": $0.local] }),
        ]
        if !handEdits.isEmpty { o["editedByHand"] = .array(handEdits.map { .string($0.summary) }) }
        if let c = conflict {
            o["conflict"] = ["kind": .string(c.kindDescription), "fields": .array(c.fields.map { .string($0) }),
                             "base": c.base?.json ?? .null, "client": c.client?.json ?? .null, "server": c.server?.json ?? .null]
        }
        return .object(o)
    }
}
