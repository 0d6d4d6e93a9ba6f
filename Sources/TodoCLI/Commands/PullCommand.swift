import TodoStore
import TodoSync

struct PullCommand: Command {
    static let name = "pull"
    static let summary = "bring the remote's changes into the replica"
    static let usage = "pull [--table NAME] [--query-id ID] [--filter ODATA] [--full] [--json]"
    static let discussion = """
        Pulls every stored query of every table (a table without one gets the query 'default'),
        from each query's delta token, page by page; each page is committed with its token, so an
        interrupted pull resumes where it stopped. A pending local change is never overwritten:
        changes to different fields merge (with a receipt), a clash becomes a conflict file.
        Pull never pushes. --query-id ID stores a query (with --filter, its OData filter);
        --filter alone pulls once without a token; --full ignores the stored tokens.
        Exit status: 0 done, 3 conflicts open, 4 network or authentication, 1 a query refused.
        """
    static let options: [OptionSpec] = [
        .table,
        OptionSpec("--query-id", .value("ID"), "the query to pull (stored with its filter)"),
        OptionSpec("--filter", .value("ODATA"), "an OData $filter, e.g. \"complete eq false\""),
        OptionSpec("--full", .flag, "ignore the stored tokens and pull from the beginning"),
        .json,
    ]

    static func run(_ args: ParsedArguments, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        _ = try positionals(args, min: 0, max: 0, names: "")
        var options = try SyncRunner.pullOptions(args, command: name)
        let store = try StoreAccess.open(ctx, writable: true, command: name)
        if let table = options.table { options.table = (try? store.resolveTable(table)) ?? table }
        return try SyncRunner.pull(store, ctx, options: options, json: args.has("--json")).exitStatus
    }
}
