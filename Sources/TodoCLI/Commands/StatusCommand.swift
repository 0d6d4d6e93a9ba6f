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
        let wantJSON = options.json
        let report = try StoreAccess.read(store, ctx, quiet: true) { s throws(CLIError) in
            let onlyTable = try options.table.map { t throws(CLIError) in try StoreAccess.table(t, s, create: false) }
            var report: StatusReport
            do throws(StoreError) { report = try StatusReport.load(s, table: onlyTable, withOperations: wantJSON) } catch { throw .store(error) }
            if !wantJSON {
                report.short = try TableShortIDs.load(s, tables: report.pending.map(\.table) + report.conflicts.map(\.table) + report.handEdits.map(\.table))
                report.resolveHint = ResolveHint.command(report.conflicts, s)
            }
            return report
        }
        if wantJSON {
            ctx.console.outRaw(report.json.canonicalBytes())
        } else if options.short {
            for line in StatusRenderer.short(report) { ctx.console.out(line) }
        } else {
            for line in StatusRenderer.long(report) { ctx.console.out(line) }
        }
        return ExitCode.ok
    }
}

/// What `todo status` shows, read in one consistent view.
struct StatusReport {
    var config: ReplicaConfig
    var pending: [OperationFileName]
    /// Full operations, only read for `--json` (which needs the ids' spelling).
    var operations: [PendingOperation]?
    var conflicts: [Conflict]
    var tables: [TableConfig]
    /// Files edited outside todo, not recorded as changes (issue 15 item 8).
    var handEdits: [HandEdit]
    /// How each id is shown: cut against its own table's ids.
    var short = TableShortIDs()
    /// The command that settles the open conflicts (`ResolveHint`).
    var resolveHint: String?
    /// Tables with no stored query whose items came from the server (a pull with `--filter`
    /// alone, or a query removed since): they were pulled, so status must not say "never".
    var pulledWithoutQuery: [String] = []
    /// Tables the remote listed at the last `pull --all-tables` that the replica does not track.
    var untracked: (tables: [String], listedAt: String)?

    static func load(_ store: Store, table: String?, withOperations: Bool) throws(StoreError) -> StatusReport {
        let names = try store.operationNames().filter { table == nil || $0.table == table }
        var ops: [PendingOperation]? = nil
        if withOperations {
            var loaded: [PendingOperation] = []
            for name in names { if let op = try store.operation(name) { loaded.append(op) } }
            ops = loaded
        }
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
        return StatusReport(config: config, pending: names, operations: ops,
                            conflicts: try store.conflicts().filter { table == nil || $0.table == table }, tables: tables,
                            handEdits: try store.handEdits(table: table), pulledWithoutQuery: pulledWithoutQuery,
                            untracked: untracked)
    }

    /// Operations that a push would skip: their item has an open conflict.
    var held: Set<Int> {
        let blocked = Set(conflicts.map { "\($0.table)/\(IDEncoding.fileName(for: $0.id))" })
        return Set(pending.filter { blocked.contains("\($0.table)/\($0.encodedID)") }.map(\.sequence))
    }

    var json: JSONValue {
        let held = self.held
        let remote: JSONValue = config.remote.map {
            ["url": .string($0), "protocol": .string(config.protocolGeneration.rawValue)]
        } ?? .null
        let pendingJSON: [JSONValue] = (operations ?? []).map { op in
            ["sequence": .number(Double(op.sequence)), "table": .string(op.table), "id": .string(op.id),
             "kind": .string(op.kind.rawValue), "attempted": .bool(op.attempted), "held": .bool(held.contains(op.sequence))]
        }
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
        var o: JSONValue = ["remote": remote, "pending": .array(pendingJSON), "conflicts": .array(conflictsJSON), "tables": .array(tablesJSON),
                            "editedByHand": .array(editedJSON)]
        if let untracked, case .object(var fields) = o {
            fields["untrackedServerTables"] = ["tables": .array(untracked.tables.map { .string($0) }), "listedAt": .string(untracked.listedAt)]
            o = .object(fields)
        }
        return o
    }
}
