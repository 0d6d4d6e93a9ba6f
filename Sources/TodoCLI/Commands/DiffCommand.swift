import TodoBasics
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

    struct Options: Equatable {
        /// ID, as given; nil: every item.
        var id: String?
        var table: String?
        var json = false
    }

    static func parse(_ args: ParsedArguments) throws(CLIError) -> Options {
        let id = try positionals(args, min: 0, max: 1, names: "ID").first
        return Options(id: id, table: args.value("--table"), json: args.has("--json"))
    }

    /// Streams: entries are built, printed and dropped one item at a time (`DiffEntry.each`);
    /// `--json` is written one element at a time, in the bytes of one array.
    static func run(_ options: Options, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let idArg = options.id
        let json = options.json
        let store = try StoreAccess.open(ctx, writable: false, command: name)
        try StoreAccess.read(store, ctx, quiet: true) { s throws(CLIError) in
            try StoreAccess.startStreaming(ctx)
            s.sweepDeadSorts()
            let onlyTable = (options.table != nil || idArg != nil) ? try StoreAccess.table(options.table, s, create: false) : nil
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
    /// operations, then items edited by hand with nothing pending. While the index of pending
    /// operations vouches for the queue, its `items` pages give that order without a sort, so
    /// the first entry comes at once (`Store.queuePages`); otherwise the queue's file names are
    /// sorted on disk by item (`RunSorter`), each item's names then by its first sequence. Each
    /// item's operations, conflict and file are read when its turn comes and dropped after it:
    /// O(n log n) at worst and flat memory (it listed the operations folder once per item, O(n²):
    /// 32 s for 8,000; then held every operation; then sorted 100,000 names before the first).
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
        var conflicts: [String: Conflict] = [:]
        var walked = ItemKeySet()
        do throws(StoreError) {
            for c in try store.conflicts() where table == nil || c.table == table { conflicts[key(c.table, IDEncoding.fileName(for: c.id))] = c }
        } catch { throw .store(error) }
        /// One item's turn: its names read in queue order.
        func item(_ names: [OperationFileName]) throws(CLIError) {
            var ops: [PendingOperation] = []
            do throws(StoreError) {
                for name in names { if let op = try store.operation(name) { ops.append(op) } }
            } catch { throw .store(error) }
            guard let first = ops.first else { return }
            try emit(first.table, first.id, ops, conflicts[key(first.table, IDEncoding.fileName(for: first.id))])
        }
        let pages: [Int]?
        do { pages = try store.queuePages(.items) } catch { throw .store(error) }
        if let pages {
            for page in pages {
                let names: [OperationFileName]
                do { names = try store.queuePage(.items, page) } catch { throw .store(error) }
                var order: [String] = []
                var groups: [String: [OperationFileName]] = [:]
                for name in names where table == nil || name.table == table {
                    let k = key(name.table, name.encodedID)
                    if groups[k] == nil { order.append(k) }
                    groups[k, default: []].append(name)
                }
                for k in order {
                    walked.insert(k)
                    try item(groups[k]!)
                }
            }
        } else {
            let items: RunSorter
            do { items = try queueByItem(store, table: table, walked: &walked) } catch { throw .store(error) }
            var failure: CLIError?
            do {
                try items.sorted { record in
                    do throws(CLIError) {
                        try item(record.payload.split(separator: 10).compactMap { OperationFileName(parsing: String(decoding: $0, as: UTF8.self)) })
                        return true
                    } catch {
                        failure = error
                        return false
                    }
                }
            } catch { throw .store(.io(error)) }
            if let failure { throw failure }
        }
        walked.finish()
        var shownConflicts = Set<String>()
        for (k, c) in conflicts.sorted(by: { $0.key < $1.key }) where !walked.contains(k) {
            try emit(c.table, c.id, [], c)
            shownConflicts.insert(k)
        }
        // Then items edited by hand with no pending change (the store may be scanned here).
        let edits: [HandEdit]
        do {
            edits = try store.handEditsWithoutOperations(table: table) { t, encoded in
                walked.contains(key(t, encoded)) || shownConflicts.contains(key(t, encoded))
            }
        } catch { throw .store(error) }
        for e in edits { try emit(e.table, e.id, [], nil) }
    }

    /// The queue's names grouped by item, in the order of each item's first operation: a sort by
    /// (item, sequence), whose merge gathers each item's names (joined by newlines) into a sort
    /// by first sequence. `walked` gets every item that has some.
    private static func queueByItem(_ store: Store, table: String?, walked: inout ItemKeySet) throws(StoreError) -> RunSorter {
        let folders = store.scratchFolders(environment: [:])
        let byItem = RunSorter(folders: folders)
        let byFirst = RunSorter(folders: folders)
        try store.forEachOperationName { name throws(StoreError) in
            guard table == nil || name.table == table else { return }
            let key = Array("\(name.table)/\(name.encodedID)".utf8) + [0] + RunSorter.numberKey(name.sequence)
            do throws(FileSystemError) { try byItem.add(key: key, payload: Array(name.name.utf8)) } catch { throw .io(error) }
        }
        var group: (item: ArraySlice<UInt8>, first: [UInt8], names: [UInt8])? = nil
        var failure: FileSystemError?
        func flush() {
            guard let g = group, failure == nil else { return }
            walked.insert(String(decoding: g.item, as: UTF8.self))
            do throws(FileSystemError) { try byFirst.add(key: g.first, payload: g.names) } catch { failure = error }
        }
        do {
            try byItem.sorted { record in
                let item = record.key.dropLast(9)
                if group?.item == item {
                    group!.names += [10] + record.payload
                } else {
                    flush()
                    group = (item, Array(record.key.suffix(8)), record.payload)
                }
                return failure == nil
            }
        } catch { throw .io(error) }
        flush()
        if let failure { throw .io(failure) }
        return byFirst
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
            "operations": .array(operations.map { JSONOutput.reference($0.reference) }),
            "base": JSONOutput.item(base), "local": JSONOutput.item(local),
            "changes": .array(changes.map { ["field": .string($0.field), "base": $0.base, "local": $0.local] }),
        ]
        if !handEdits.isEmpty { o["editedByHand"] = .array(handEdits.map { .string($0.summary) }) }
        if let c = conflict {
            o["conflict"] = ["kind": .string(c.kindDescription), "fields": .array(c.fields.map { .string($0) }),
                             "base": JSONOutput.item(c.base), "client": JSONOutput.item(c.client), "server": JSONOutput.item(c.server)]
        }
        return .object(o)
    }
}
