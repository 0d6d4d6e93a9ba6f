import TodoModel
import TodoStore

/// `todo table list|rm`: the tables the replica tracks, and a way back from a mistyped `--table`
/// (whose stored query would make every later pull fail).
struct TableCommand: Command {
    static let name = "table"
    static let summary = "list the tables this replica tracks, or remove one"
    static let usage = "table list | table rm NAME [--force]"
    static let discussion = """
        'table list' shows each table with its items, pending operations, open conflicts and pull
        queries (* marks the default table). 'table rm NAME' removes the table from this replica:
        its items, its queries and their tokens. It refuses while the table has pending operations
        or open conflicts; --force drops them, each operation with a 'purge force' receipt holding
        its copy (see 'todo log'). The server is never contacted: rows there stay, and a later
        'todo pull --table NAME' brings the table back.
        """
    static let options: [OptionSpec] = [OptionSpec("--force", .flag, "drop the table's pending operations and open conflicts")]

    enum Options: Equatable {
        case list
        case remove(table: String, force: Bool)
    }

    static func parse(_ args: ParsedArguments) throws(CLIError) -> Options {
        let words = try positionals(args, min: 1, max: 2, names: "a subcommand: list or rm NAME")
        switch words[0] {
        case "list":
            if words.count > 1 { throw .usage("unexpected argument '\(words[1])'", command: name) }
            if args.has("--force") { throw .usage("--force goes with 'table rm'", command: name) }
            return .list
        case "rm":
            guard words.count == 2 else { throw .usage("missing NAME (the table to remove)", command: name) }
            return .remove(table: words[1], force: args.has("--force"))
        default:
            var error = CLIError.usage("'\(words[0])' is not a 'todo table' subcommand; use list or rm", command: name)
            if let hint = Suggestion.hint(for: words[0], among: ["list", "rm"], prefix: "todo table ") { error.hint = hint }
            throw error
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        switch options {
        case .list: return try list(ctx)
        case .remove(let table, let force): return try remove(table, force: force, ctx)
        }
    }

    static func list(_ ctx: CommandContext) throws(CLIError) -> Int32 {
        let store = try StoreAccess.open(ctx, writable: false, command: name)
        let lines = try StoreAccess.read(store, ctx, quiet: true) { s throws(CLIError) -> [String] in
            do throws(StoreError) {
                let defaultTable = try s.config().defaultTable
                let ops = try s.operationNames()
                let conflicts = try s.conflictNames()
                var lines: [String] = []
                for table in try s.tables() {
                    let items = try s.list(s.layout.itemsDirectory(table)).filter { $0.hasSuffix(".json") }.count
                    let queries = (try s.tableConfig(table))?.queries.keys.sorted() ?? []
                    let mark = TableName.same(table, defaultTable) ? "*" : " "
                    lines.append("\(mark) \(table)  \(Plural.count(items, "item")), "
                                 + "\(Plural.count(ops.filter { $0.table == table }.count, "pending operation")), "
                                 + "\(Plural.count(conflicts.filter { $0.table == table }.count, "open conflict")); "
                                 + "queries: \(queries.isEmpty ? "none" : queries.joined(separator: ", "))")
                }
                return lines
            } catch {
                throw .store(error)
            }
        }
        if lines.isEmpty { ctx.console.out("No tables yet ('todo add' or 'todo pull' creates one).") }
        for line in lines { ctx.console.out(line) }
        return ExitCode.ok
    }

    static func remove(_ requested: String, force: Bool, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let store = try StoreAccess.open(ctx, writable: true, command: name)
        if let batch = ctx.environment["TODO_TEST_ITEM_BATCH"].flatMap(Int.init), batch > 0 { store.itemBatchSize = batch }
        let table = try StoreAccess.table(requested, store, create: false)
        let plan: PurgePlan
        do {
            let ops = try store.operations(table: table)
            let conflicts = try store.conflicts().filter { $0.table == table }
            if !force && (!ops.isEmpty || !conflicts.isEmpty) {
                throw CLIError(.failure, "table \(table) has \(Plural.count(ops.count, "pending operation")) and \(Plural.count(conflicts.count, "open conflict")); removing it would drop them",
                               hint: "push them first ('todo push --table \(table)'), or drop them with 'todo table rm \(table) --force' (each operation leaves a receipt)")
            }
            // Only the items with operations or conflicts are read (their receipts keep the last
            // server copy); every item file goes by name (issue 21).
            plan = try Purge.plan(table: try store.tableConfig(table) ?? TableConfig(name: table),
                                  items: try store.items(table: table, ids: ops.map(\.id) + conflicts.map(\.id)),
                                  operations: ops, conflicts: conflicts, force: true, query: nil,
                                  now: ctx.clock.nowText(), matches: { _ in true })
        } catch let error as CLIError {
            throw error
        } catch let error as StoreError {
            throw .store(error)
        } catch {
            throw CLIError(.internal, "\(error)")
        }
        // Its item files go by name, a batch a commit after the first (`ItemRemoval`), then its
        // numbers and folders.
        let removal = ItemRemoval(store: store, command: .tableRemoval, table: table)
        defer { removal.discard() }
        var tx: StoreTransaction
        do {
            try store.forEachItemPath(table: table) { path throws(StoreError) in try removal.add(path) }
            tx = try store.transaction()
        } catch {
            throw .store(error)
        }
        for op in plan.operationRemovals { tx.removeOperation(op) }
        for id in plan.conflictRemovals { tx.removeConflict(table: table, id: id) }
        for receipt in plan.receipts { tx.addReceipt(receipt) }
        tx.remove(store.layout.tableConfig(table))
        let items = removal.count
        if try StoreAccess.commit(tx, removal, ctx), store.fs.isDirectory(store.layout.absolute(store.layout.tableDirectory(table))) {
            do { try store.removeEmptyTableFolders(table) } catch {
                throw CLIError(.failure, "removed the files of table \(table), but not its folder: \(error.message)",
                               hint: "remove what is left in \(store.displayPath(store.layout.tableDirectory(table))), then run 'todo table rm \(table)' again")
            }
        }
        if !plan.operationRemovals.isEmpty {
            ctx.console.out("dropped \(Plural.count(plan.operationRemovals.count, "pending operation")); each left a 'purge force' receipt (see 'todo log')")
        }
        ctx.console.out("removed table \(table) from this replica (\(Plural.count(items, "item")) and its queries); the server was not contacted")
        return ExitCode.ok
    }
}
