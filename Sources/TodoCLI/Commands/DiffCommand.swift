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

    /// Streams: entries are built, printed and dropped one item at a time (`DiffEntry.each`);
    /// `--json` is written one element at a time, in the bytes of one array.
    static func run(_ args: ParsedArguments, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let idArg = try positionals(args, min: 0, max: 1, names: "ID").first
        let json = args.has("--json")
        let store = try StoreAccess.open(ctx, writable: false, command: name)
        try StoreAccess.read(store, ctx, quiet: true) { s throws(CLIError) in
            try StoreAccess.startStreaming(ctx)
            let onlyTable = (args.value("--table") != nil || idArg != nil) ? try StoreAccess.table(args, s, create: false) : nil
            let id = try idArg.map { (arg: String) throws(CLIError) in try StoreAccess.resolveID(arg, table: onlyTable!, in: s) }
            var count = 0
            try DiffEntry.each(s, table: onlyTable, id: id) { entry throws(CLIError) in
                var entry = entry
                if let c = entry.conflict { entry.resolveHint = ResolveHint.command([c], s) }
                if json {
                    ctx.console.outRaw(Array((count == 0 ? "[\n  " : ",\n  ").utf8) + entry.json.canonicalBytes(nestedAt: 1))
                } else {
                    if count > 0 { ctx.console.out("") }
                    for line in DiffRenderer.render(entry) { ctx.console.out(line) }
                }
                count += 1
            }
            if json {
                ctx.console.outRaw(Array((count == 0 ? "[]\n" : "\n]\n").utf8))
            } else if let idArg, count == 0 {
                ctx.console.out("\(ShortID.of(id ?? idArg)): no local changes")
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

    /// Every item's entry, in queue order of its first operation, then conflicts without
    /// operations, then items edited by hand with nothing pending. The queue is taken as file
    /// names (grouped by item), and each item's operations, conflict and file are read when its
    /// turn comes: O(n) reads and no operation held past its item (it listed the operations
    /// folder once per item, O(n²): 32 s for 8,000; then held every operation: 100,000 of them).
    static func each(_ store: Store, table: String?, id: String?, _ body: (DiffEntry) throws(CLIError) -> Void) throws(CLIError) {
        /// An item's entry from its operations (nil: read them by id) and conflict.
        func emit(_ t: String, _ i: String, _ ops: [PendingOperation]?, _ conflict: Conflict?) throws(CLIError) {
            let e: DiffEntry?
            do throws(StoreError) {
                let history = if let ops { try store.history(table: t, id: i, operations: ops) } else { try store.history(table: t, id: i) }
                e = try entry(store, history, conflict: conflict)
            } catch { throw .store(error) }
            if let e { try body(e) }
        }
        if let table, let id {
            let conflict: Conflict?
            do { conflict = try store.conflict(table: table, id: id) } catch { throw .store(error) }
            try emit(table, id, nil, conflict)
            return
        }
        func key(_ table: String, _ encoded: String) -> String { "\(table)/\(encoded)" }
        var keys: [String] = []
        var namesByKey: [String: [OperationFileName]] = [:]
        var conflicts: [String: Conflict] = [:]
        var conflictKeys: [String] = []
        do throws(StoreError) {
            for name in try store.operationNames() where table == nil || name.table == table {
                let k = key(name.table, name.encodedID)
                if namesByKey[k] == nil { keys.append(k) }
                namesByKey[k, default: []].append(name)
            }
            for c in try store.conflicts() where table == nil || c.table == table {
                let k = key(c.table, IDEncoding.fileName(for: c.id))
                if namesByKey[k] == nil && conflicts[k] == nil { conflictKeys.append(k) }
                conflicts[k] = c
            }
        } catch { throw .store(error) }
        var done = Set<String>()
        for k in keys {
            var ops: [PendingOperation] = []
            do throws(StoreError) {
                for name in namesByKey.removeValue(forKey: k) ?? [] { if let op = try store.operation(name) { ops.append(op) } }
            } catch { throw .store(error) }
            guard let first = ops.first else { continue }
            try emit(first.table, first.id, ops, conflicts[k])
            done.insert(k)
        }
        for k in conflictKeys {
            try emit(conflicts[k]!.table, conflicts[k]!.id, [], conflicts[k])
            done.insert(k)
        }
        // Then items edited by hand with no pending change (the store may be scanned here).
        let edits: [HandEdit]
        do {
            edits = try store.handEditsWithoutOperations(table: table) { t, encoded in done.contains(key(t, encoded)) }
        } catch { throw .store(error) }
        for e in edits where done.insert(key(e.table, IDEncoding.fileName(for: e.id))).inserted {
            try emit(e.table, e.id, [], nil)
        }
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
