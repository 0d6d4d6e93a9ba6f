import TodoStore
import TodoSync

struct PullCommand: Command {
    static let name = "pull"
    static let summary = "bring the remote's changes into the replica"
    static let usage = "pull [--table NAME] [--query-id ID] [--filter ODATA] [--full] [--all-tables] [--verify] [--json]"
    static let discussion = """
        Pulls every stored query of every table (a table without one gets the query 'default'),
        from each query's delta token, page by page; each page is committed with its token, so an
        interrupted pull resumes where it stopped. A pending local change is never overwritten:
        changes to different fields merge (with a receipt), a clash becomes a conflict file.
        Pull never pushes. --query-id ID stores a query (with --filter, its OData filter);
        --filter alone pulls once without a token; --full ignores the stored tokens.
        --verify reads every row of the server instead and checks each copy the replica keeps at
        the same version (items, bases of pending operations, server copies in conflicts); a copy
        that differs is replaced by the server's row, with a receipt that keeps the replaced
        values. Nothing else changes.
        --all-tables first asks the server for its tables (GET /tables, which todo-server answers)
        and also pulls each one this replica does not track yet, such as a table created on the
        server after the clone; 'todo status' then names the listed tables that are not tracked. A
        server that cannot list its tables gets a warning, and the tracked tables are pulled.
        Exit status: 0 done, 3 conflicts open, 4 network or authentication, 1 a query refused.
        """
    static let options: [OptionSpec] = [
        .table,
        OptionSpec("--query-id", .value("ID"), "the query to pull (stored with its filter)"),
        OptionSpec("--filter", .value("ODATA"), "an OData $filter, e.g. \"complete eq false\""),
        OptionSpec("--full", .flag, "ignore the stored tokens and pull from the beginning"),
        OptionSpec("--all-tables", .flag, "also pull every table the server lists that is not tracked here"),
        OptionSpec("--verify", .flag, "check the replica's copies against the server's rows of the same version, and repair them"),
        .json,
    ]

    static func run(_ args: ParsedArguments, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        _ = try positionals(args, min: 0, max: 0, names: "")
        if args.has("--verify") {
            if let other = ["--query-id", "--filter", "--full", "--all-tables"].first(where: { args.has($0) || args.value($0) != nil }) {
                throw .usage("--verify reads the whole table; it does not take \(other)", command: name)
            }
            let store = try StoreAccess.open(ctx, writable: true, command: name)
            return ExitCode.of(try SyncRunner.verify(store, ctx, table: args.value("--table"), repair: true, json: args.has("--json")))
        }
        var options = try SyncRunner.pullOptions(args, command: name)
        let store = try StoreAccess.open(ctx, writable: true, command: name)
        if let table = options.table { options.table = (try? store.resolveTable(table)) ?? table }
        return ExitCode.of(try SyncRunner.pull(store, ctx, options: options, json: args.has("--json")))
    }
}
