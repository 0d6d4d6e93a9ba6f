import TodoModel
import TodoStore

/// `todo query list|rm`: the pull queries a replica keeps (one per `--query-id`), and a way to
/// drop one made by a typo.
struct QueryCommand: Command {
    static let name = "query"
    static let summary = "list the stored pull queries, or remove one"
    static let usage = "query list [--table NAME] | query rm ID [--table NAME]"
    static let discussion = """
        Every 'todo pull --query-id ID' keeps its query: the filter and where the last pull stopped.
        'query list' shows them (of every table, or of --table). 'query rm ID' forgets one: later
        pulls skip it. The items it brought stay; 'todo purge --query-id ID' before removing it drops
        them too.
        """
    static let options: [OptionSpec] = [OptionSpec("--table", .value("NAME"), "only this table (for rm: the query's table, default the replica's default)")]

    struct Options: Equatable {
        enum Action: Equatable { case list, remove(id: String) }
        var action: Action
        /// For list: nil for every table; for rm: nil for the default table.
        var table: String?
    }

    static func parse(_ args: ParsedArguments) throws(CLIError) -> Options {
        let words = try positionals(args, min: 1, max: 2, names: "a subcommand: list or rm ID")
        switch words[0] {
        case "list":
            if words.count > 1 { throw .usage("unexpected argument '\(words[1])'", command: name) }
            return Options(action: .list, table: args.value("--table"))
        case "rm":
            guard words.count == 2 else { throw .usage("missing ID (the query to remove)", command: name) }
            return Options(action: .remove(id: words[1]), table: args.value("--table"))
        default:
            var error = CLIError.usage("'\(words[0])' is not a 'todo query' subcommand; use list or rm", command: name)
            if let hint = Suggestion.hint(for: words[0], among: ["list", "rm"], prefix: "todo query ") { error.hint = hint }
            throw error
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        switch options.action {
        case .list: return try list(table: options.table, ctx)
        case .remove(let id): return try remove(id, table: options.table, ctx)
        }
    }

    static func list(table named: String?, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let store = try StoreAccess.open(ctx, writable: false, command: name)
        let configs = try StoreAccess.read(store, ctx, quiet: true) { s throws(CLIError) -> [TableConfig] in
            let only = try named.map { t throws(CLIError) in try StoreAccess.table(t, s, create: false) }
            do throws(StoreError) {
                var configs: [TableConfig] = []
                for t in try s.tables() where only == nil || t == only {
                    if let config = try s.tableConfig(t) { configs.append(config) }
                }
                return configs
            } catch {
                throw .store(error)
            }
        }
        var any = false
        for config in configs {
            for id in config.queries.keys.sorted() {
                let q = config.queries[id]!
                any = true
                ctx.console.out("\(config.name)/\(id)  filter: \(q.filter ?? "none")  last pull: \(q.lastPullAt ?? "never")")
            }
        }
        if !any { ctx.console.out("No pull queries yet ('todo pull' makes the 'default' query of each table).") }
        return ExitCode.ok
    }

    static func remove(_ id: String, table named: String?, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let store = try StoreAccess.open(ctx, writable: true, command: name)
        let table = try StoreAccess.table(named, store, create: false)
        var config: TableConfig
        do { config = try store.tableConfig(table) ?? TableConfig(name: table) } catch { throw .store(error) }
        guard config.queries.removeValue(forKey: id) != nil else {
            let known = config.queries.keys.sorted()
            var hint = known.isEmpty ? "table \(table) has no queries; 'todo query list' shows those of every table"
                                     : "queries of \(table): \(known.joined(separator: ", "))"
            if let near = Suggestion.hint(for: id, among: known) { hint = near + " (" + hint + ")" }
            throw CLIError(.failure, "no query '\(id)' in table \(table)", hint: hint)
        }
        var tx: StoreTransaction
        do { tx = try store.transaction() } catch { throw .store(error) }
        tx.putTableConfig(config)
        try StoreAccess.commit(tx, store, ctx)
        ctx.console.out("removed query '\(id)' of table \(table); its items stay (later pulls skip it)")
        return ExitCode.ok
    }
}
