import TodoBasics
import TodoModel
import TodoStore

struct PurgeCommand: Command {
    static let name = "purge"
    static let summary = "remove a table's local items so the next pull fetches them again"
    static let usage = "purge [--table NAME] [--query-id ID] [--force]"
    static let discussion = """
        Removes every local item of the table and the pull token of each of its queries (the queries,
        their filters and the cursor mode stay), so the next 'todo pull' fetches everything again.
        With --query-id, only the items that match that query's filter are removed, and only its token
        is reset. Purge is local: it never contacts the server.
        It refuses while the table has pending operations or open conflicts. --force drops them, each
        operation with a 'purge force' receipt holding its copy (see 'todo log'), and returns each of
        their items to the last copy the server sent before purging.
        """
    static let options: [OptionSpec] = [
        OptionSpec("--query-id", .value("ID"), "only the items matching this pull query's filter, and only its token"),
        OptionSpec("--force", .flag, "drop the table's pending operations and open conflicts"),
        .table,
    ]

    struct Options: Equatable {
        /// `--query-id ID`: only that query's items and token.
        var query: String?
        var force = false
        var table: String?
    }

    static func parse(_ args: ParsedArguments) throws(CLIError) -> Options {
        _ = try positionals(args, min: 0, max: 0, names: "")
        return Options(query: args.value("--query-id"), force: args.has("--force"), table: args.value("--table"))
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let store = try StoreAccess.open(ctx, writable: true, command: name)
        if let batch = ctx.environment["TODO_TEST_ITEM_BATCH"].flatMap(Int.init), batch > 0 { store.itemBatchSize = batch }
        let table = try StoreAccess.table(options.table, store, create: false)
        let query = options.query
        var plan: PurgePlan
        let removal = ItemRemoval(store: store, command: .purge, table: table)
        defer { removal.discard() }
        do {
            let config = try store.tableConfig(table) ?? TableConfig(name: table)
            let tableFile = store.displayPath(store.layout.tableConfig(table))
            let filter = query.flatMap { config.queries[$0]?.filter }
            let matches = try ItemFilter.predicate(filter, query: query ?? "", table: table, tableFile: tableFile)
            let operations = try store.operations(table: table)
            let conflicts = try store.conflicts().filter { $0.table == table }
            // The rules of sync.md §6 for the items with operations or conflicts; every other
            // item is walked a batch at a time and goes if it matches (issue 21).
            let touched = operations.map(\.id) + conflicts.map(\.id)
            plan = try Purge.plan(table: config, items: try store.items(table: table, ids: touched), operations: operations,
                                  conflicts: conflicts, force: options.force, query: query, now: ctx.clock.nowText(), matches: matches)
            try store.forEachItem(table: table, skipping: touched) { item throws(StoreError) in
                if Purge.removes(item, query: query, matches: matches) { try removal.add(store.layout.item(table, item.id)) }
            }
        } catch let error as PurgeRefusal {
            throw CLIError(.failure, error.message, hint: hint(error))
        } catch let error as StoreError {
            throw .store(error)
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError(.internal, "\(error)")
        }
        if let batch = ctx.environment["TODO_TEST_ITEM_BATCH"].flatMap(Int.init), batch > 0 {
            ctx.console.err("purge held at most \(store.peakItemFilesHeld) item files")
        }

        var tx: StoreTransaction
        do { tx = try store.transaction() } catch { throw .store(error) }
        for op in plan.operationRemovals { tx.removeOperation(op) }
        for id in plan.conflictRemovals { tx.removeConflict(table: table, id: id) }
        for id in plan.itemRemovals { tx.removeItem(table: table, id: id) }
        for item in plan.itemWrites { tx.putItem(item, table: table) }
        for receipt in plan.receipts { tx.addReceipt(receipt) }
        if plan.tokensReset > 0 { tx.putTableConfig(plan.table) }
        // The other items go a batch a commit after this one (`ItemRemoval`).
        try StoreAccess.commit(tx, removal, ctx)
        let removed = plan.itemRemovals.count + removal.count

        if !plan.operationRemovals.isEmpty {
            let conflicts = plan.conflictRemovals.isEmpty ? "" : " and \(Plural.count(plan.conflictRemovals.count, "open conflict"))"
            ctx.console.out("dropped \(Plural.count(plan.operationRemovals.count, "pending operation"))\(conflicts); "
                            + "each operation left a 'purge force' receipt (see 'todo log')")
        }
        let what = query.map { "\(table) query '\($0)'" } ?? table
        let tokens = query == nil ? Plural.count(plan.tokensReset, "query token") : (plan.tokensReset == 0 ? "no token" : "its token")
        ctx.console.out("purged \(what): removed \(Plural.count(removed, "item")) and \(tokens); "
                        + "the next 'todo pull' fetches them again")
        return ExitCode.ok
    }

    static func hint(_ refusal: PurgeRefusal) -> String {
        switch refusal {
        case .pending(let table, _, let conflicts):
            let status = "see them with 'todo status --table \(table)'"
            return conflicts == 0 ? status : status + "; 'todo resolve' settles conflicts"
        case .unknownQuery(let table, _, let known):
            return known.isEmpty
                ? "table \(table) has no queries yet; 'todo pull --table \(table) --query-id ID' creates one"
                : "queries of \(table): \(known.joined(separator: ", "))"
        }
    }
}
