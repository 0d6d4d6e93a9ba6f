import TableProtocol
import TodoModel
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

    struct Options {
        /// A pull, or `--verify` of the table (nil: every table).
        enum Action { case pull(PullEngine.Options), verify(table: String?) }
        var action: Action
        var json = false
    }

    static func parse(_ args: ParsedArguments) throws(CLIError) -> Options {
        _ = try positionals(args, min: 0, max: 0, names: "")
        let json = args.has("--json")
        if args.has("--verify") {
            let others = [("--query-id", args.value("--query-id") != nil), ("--filter", args.value("--filter") != nil),
                          ("--full", args.has("--full")), ("--all-tables", args.has("--all-tables"))]
            if let other = others.first(where: { $0.1 })?.0 {
                throw .usage("--verify reads the whole table; it does not take \(other)", command: name)
            }
            return Options(action: .verify(table: args.value("--table")), json: json)
        }
        return Options(action: .pull(try pullOptions(args)), json: json)
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let store = try StoreAccess.open(ctx, writable: true, command: name)
        switch options.action {
        case .verify(let table):
            return ExitCode.of(try SyncRunner.verify(store, ctx, table: table, repair: true, json: options.json))
        case .pull(var pull):
            if let table = pull.table { pull.table = (try? store.resolveTable(table)) ?? table }
            return ExitCode.of(try SyncRunner.pull(store, ctx, options: pull, json: options.json))
        }
    }

    /// Validates `--query-id` and `--filter` before any request (sync.md §5.1.2).
    private static func pullOptions(_ args: ParsedArguments) throws(CLIError) -> PullEngine.Options {
        let queryID = args.value("--query-id")
        if let queryID {
            let ok = (1...64).contains(queryID.utf8.count) && queryID.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2E || $0 == 0x5F || $0 == 0x2D
            }
            guard ok else {
                throw .usage("'\(queryID)' is not a query id; use 1 to 64 characters of A-Z a-z 0-9 . _ -", command: name)
            }
        }
        let filter = args.value("--filter")
        if let filter {
            do { _ = try ODataQueryOptions.parseFilter(filter) } catch {
                throw .usage("the filter does not parse: \(error)", command: name)
            }
            // The pull sends it combined with its cursor condition, a few levels deeper: check
            // that form too, so a filter at the nesting limit fails here, not as a 400 mid-pull.
            let cursor = PullFilterText.cursorCondition(updatedAtName: "updatedAt", updatedAtText: "2000-01-01T00:00:00.000Z", id: "x")
            do { _ = try ODataQueryOptions.parseFilter(PullFilterText.combine(query: filter, condition: cursor) ?? filter) } catch {
                throw .usage("the filter is nested too deeply to be combined with the pull's cursor condition: \(error)", command: name)
            }
        }
        if args.value("--query-id") != nil || filter != nil, let table = args.value("--table"), let p = TableName.problem(table) {
            throw .usage(p, command: name)
        }
        if args.has("--all-tables"), let other = ["--table", "--query-id", "--filter"].first(where: { args.value($0) != nil }) {
            throw .usage("--all-tables pulls every table; it does not take \(other)", command: name)
        }
        return PullEngine.Options(table: args.value("--table"), queryID: queryID, filter: filter, full: args.has("--full"),
                                  allTables: args.has("--all-tables"))
    }
}
