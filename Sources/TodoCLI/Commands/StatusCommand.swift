import TodoModel
import TodoStore

struct StatusCommand: Command {
    static let name = "status"
    static let summary = "show the remote, pending operations, conflicts and last pulls"
    static let usage = "status [--short] [--table NAME] [--json]"
    static let discussion = """
        Like 'git status': what is waiting to be pushed, which conflicts are open, which files were
        edited by hand without being recorded as changes, and when each query was last pulled. Reads
        every item and operation file (to find edits made by hand). Exits 0 even when conflicts are open.
        """
    static let options: [OptionSpec] = [
        OptionSpec("--short", .flag, "one line per pending operation and conflict"),
        OptionSpec("--table", .value("NAME"), "only this table"),
        .json,
    ]

    struct Options: Equatable {
        var short = false
        /// nil: every table.
        var table: String?
        var json = false
    }

    static func parse(_ args: ParsedArguments) throws(CLIError) -> Options {
        _ = try positionals(args, min: 0, max: 0, names: "")
        return Options(short: args.has("--short"), table: args.value("--table"), json: args.has("--json"))
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let store = try StoreAccess.open(ctx, writable: false, command: name)
        let form: StatusReport.Form = options.json ? .json : options.short ? .short : .long
        let small = StatusReport.Budgets(ctx.environment)
        small.apply(to: store)
        let report = try StoreAccess.read(store, ctx, quiet: true) { s throws(CLIError) in
            let onlyTable = try options.table.map { t throws(CLIError) in try StoreAccess.table(t, s, create: false) }
            var report = try StatusReport.load(s, table: onlyTable, form: form, sortBudget: small.sort ?? 8 << 20,
                                               folders: s.scratchFolders(environment: ctx.environment))
            if form != .json { report.resolveHint = ResolveHint.command(report.conflicts, s) }
            return report
        }
        if small.isSet {
            let f = report.queue.figures
            ctx.console.err("status held at most \(f.operations) operations and \(f.names) names; the queue was sorted in \(f.runs) runs")
            ctx.console.err("the stamp cache: at most \(f.stamps) entries held at once; the item files were sorted in \(f.stampRuns) runs")
        }
        switch form {
        case .json: try report.writeJSON { ctx.console.outRaw($0) }
        case .short: try StatusRenderer.short(report) { ctx.console.out($0) }
        case .long: for line in StatusRenderer.long(report) { ctx.console.out(line) }
        }
        return ExitCode.ok
    }
}

/// What `todo status` shows, read in one consistent view. The queue is walked, not held
/// (`StatusQueue`): its lines are printed from a sort on disk after the rest.
struct StatusReport {
    enum Form { case long, short, json }

    var config: ReplicaConfig
    var queue: StatusQueue
    var conflicts: [Conflict]
    var tables: [TableConfig]
    /// Files edited outside todo, not recorded as changes (issue 15 item 8).
    var handEdits: [HandEdit]
    /// How the ids of conflicts and hand edits are shown: cut against their own table's ids.
    var short = StatusShownIDs()
    /// The command that settles the open conflicts (`ResolveHint`).
    var resolveHint: String?
    /// Tables with no stored query whose items came from the server (a pull with `--filter`
    /// alone, or a query removed since): they were pulled, so status must not say "never".
    var pulledWithoutQuery: [String] = []
    /// Tables the remote listed at the last `pull --all-tables` that the replica does not track.
    var untracked: (tables: [String], listedAt: String)?

    /// `TODO_TEST_SORT_BUDGET` (bytes) and `TODO_TEST_ITEM_BATCH` (operations, item files, and
    /// entries of a page of the stamp cache): small in tests, which then read on stderr what
    /// status held at most.
    struct Budgets {
        var sort: Int?
        var batch: Int?

        init(_ environment: [String: String]) {
            sort = environment["TODO_TEST_SORT_BUDGET"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil }
            batch = environment["TODO_TEST_ITEM_BATCH"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil }
        }

        var isSet: Bool { sort != nil || batch != nil }

        func apply(to store: Store) {
            if let sort { store.pendingIndexSortBudget = sort }
            if let batch {
                store.itemBatchSize = batch
                store.stampPageEntries = batch
            }
        }
    }

    static func load(_ store: Store, table: String?, form: Form, sortBudget: Int, folders: [String]) throws(CLIError) -> StatusReport {
        let conflicts: [Conflict]
        do { conflicts = try store.conflicts().filter { table == nil || $0.table == table } } catch { throw .store(error) }
        var (queue, handEdits, short) = try walk(store, table: table, form: form, conflicts: conflicts, budget: sortBudget, folders: folders)
        queue.figures.operations = store.peakOperationsHeld
        queue.figures.stamps = store.peakStampsHeld
        queue.figures.stampRuns = store.stampRunsWritten
        queue.figures.names += store.pendingIndexFigures.names
        queue.figures.runs += store.pendingIndexFigures.runs
        do throws(StoreError) {
            var tables: [TableConfig] = []
            var pulledWithoutQuery: [String] = []
            for t in try store.tables() where table == nil || t == table {
                guard let config = try store.tableConfig(t) else { continue }
                tables.append(config)
                if config.queries.isEmpty, try store.containsItem(table: t, where: { $0.system.version != nil }) {
                    pulledWithoutQuery.append(config.name)
                }
            }
            let config = try store.config()
            var untracked: (tables: [String], listedAt: String)? = nil
            if table == nil, let list = try store.serverTables(), list.remote == config.remote {
                untracked = (list.untracked(by: try store.tables()), list.listedAt)
            }
            return StatusReport(config: config, queue: queue, conflicts: conflicts, tables: tables, handEdits: handEdits, short: short,
                                pulledWithoutQuery: pulledWithoutQuery, untracked: untracked)
        } catch { throw .store(error) }
    }

    /// An element of `--json`'s `pending`.
    static func json(_ op: PendingOperation, held: Bool) -> JSONValue {
        ["sequence": .number(Double(op.sequence)), "table": .string(op.table), "id": .string(op.id),
         "kind": .string(op.kind.rawValue), "attempted": .bool(op.attempted), "held": .bool(held)]
    }

    /// What stands for `pending` in the document until its elements are written one at a time.
    private static let pendingMark = "\u{0}pending\u{0}"

    /// `--json`: the document as one value would print it, `pending`'s elements streamed from
    /// the queue's sort.
    func writeJSON(_ out: ([UInt8]) -> Void) throws(CLIError) {
        let whole = json.canonicalBytes()
        let mark = JSONValue.string(Self.pendingMark).compactBytes()
        guard let at = whole.firstRange(of: mark) else { return out(whole) }
        out(Array(whole[..<at.lowerBound]))
        var first = true
        try queue.forEachLine { element in
            out(Array((first ? "[\n    " : ",\n    ").utf8) + element)
            first = false
            return true
        }
        out(Array((first ? "[]" : "\n  ]").utf8))
        out(Array(whole[at.upperBound...]))
    }

    /// The document, with `pendingMark` in place of `pending`.
    private var json: JSONValue {
        let remote: JSONValue = config.remote.map {
            ["url": .string($0), "protocol": .string(config.protocolGeneration.rawValue)]
        } ?? .null
        let conflictsJSON: [JSONValue] = conflicts.map { c in
            ["table": .string(c.table), "id": .string(c.id), "kind": .string(c.kindDescription),
             "reason": .string(c.reason.rawValue), "status": c.status.map { .number(Double($0)) } ?? .null,
             "detectedBy": .string(c.detectedBy.rawValue), "fields": .array(c.fields.map { .string($0) })]
        }
        let tablesJSON: [JSONValue] = tables.map { t in
            let queries: [JSONValue] = t.queries.keys.sorted().map { id in
                let q = t.queries[id]!
                return ["id": .string(id), "filter": q.filter.map { .string($0) } ?? .null,
                        "lastPullAt": q.lastPullAt.map { .string($0) } ?? .null,
                        "token": q.token.map { ["updatedAt": .string($0.updatedAt), "id": $0.id.map { .string($0) } ?? .null] } ?? .null]
            }
            return ["name": .string(t.name), "cursorMode": .string(t.cursorMode.rawValue), "queries": .array(queries),
                    "hardDelete": .bool(t.hardDelete)]
        }
        let editedJSON: [JSONValue] = handEdits.map { e in
            var o: [String: JSONValue] = ["table": .string(e.table), "id": .string(e.id), "path": .string(StoreLayout.directoryName + "/" + e.path)]
            switch e.subject {
            case .item(let changes):
                o["file"] = "item"
                o["fields"] = .array(changes.map { .string($0.name) })
            case .operation(let sequence, let changes):
                o["file"] = "operation"
                o["sequence"] = .number(Double(sequence))
                o["fields"] = .array(changes.map { .string($0.name) })
            }
            return .object(o)
        }
        var o: JSONValue = ["remote": remote, "pending": .string(Self.pendingMark), "conflicts": .array(conflictsJSON), "tables": .array(tablesJSON),
                            "editedByHand": .array(editedJSON)]
        if let untracked, case .object(var fields) = o {
            fields["untrackedServerTables"] = ["tables": .array(untracked.tables.map { .string($0) }), "listedAt": .string(untracked.listedAt)]
            o = .object(fields)
        }
        return o
    }
}
