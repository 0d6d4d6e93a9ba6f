import TodoModel
import TodoStore

struct ListCommand: Command {
    static let name = "list"
    static let summary = "list items (incomplete ones by default)"
    static let usage = "list [--pending|--done|--all] [--where FIELD=VALUE]... [--sort [-]FIELD]... [--limit N] [--columns LIST] [--color WHEN] [--table NAME] [--json|--json-lines]"
    static let discussion = """
        Lists the table's items in the order of their numbers (the order they came to this replica):
        incomplete ones by default (--pending), --done for complete ones, --all for every item. A
        pending local change is shown after the text. --where keeps items whose field (or id,
        createdAt, updatedAt, version, done) is equal (FIELD=VALUE), not equal (FIELD!=VALUE) or
        contains a text ignoring case (FIELD~TEXT); several must all hold. --sort orders by fields
        first (-FIELD: descending; items without the field come last), by number after them. On a
        terminal, lines are cut to its width and coloured (the unique part of each id highlighted,
        done items dimmed); NO_COLOR or --color never turns colour off. Any size of table is listed
        in bounded memory; in the default order output starts at once, with --sort once the items
        are sorted.
        """
    static let options: [OptionSpec] = [
        OptionSpec("--pending", .flag, "incomplete items only (the default)"),
        OptionSpec("--done", .flag, "complete items only"),
        OptionSpec("--all", .flag, "every item"),
        OptionSpec("--where", .repeated("FIELD=VALUE"), "only items that match: FIELD=VALUE, FIELD!=VALUE, FIELD~TEXT"),
        OptionSpec("--sort", .repeated("[-]FIELD"), "order by a field first (-FIELD: descending); commas for several"),
        OptionSpec("--limit", .value("N"), "at most N items"),
        OptionSpec("--columns", .value("LIST"), "columns, with commas: id, done, text, or any field (default id,done,text)"),
        OptionSpec("--color", .value("WHEN"), "auto (on a terminal, unless NO_COLOR is set), always or never"),
        .table, .json,
        OptionSpec("--json-lines", .flag, "one JSON item per line (as 'jq -c' expects)"),
    ]

    struct Options {
        /// Everything but its colour, which `--color auto` decides by the terminal when it runs.
        var query = ListQuery()
        var color = ListQuery.ColorChoice.auto
        var table: String?
    }

    static func parse(_ args: ParsedArguments) throws(CLIError) -> Options {
        _ = try positionals(args, min: 0, max: 0, names: "")
        var query = ListQuery()
        let states = [("--pending", args.has("--pending")), ("--done", args.has("--done")), ("--all", args.has("--all"))]
            .filter { $0.1 }.map(\.0)
        if states.count > 1 { throw .usage("\(states[0]) and \(states[1]) exclude each other", command: name) }
        query.state = states.first == "--done" ? .done : states.first == "--all" ? .all : .pending
        for text in args.all("--where") { query.matches.append(try FieldMatch.parse(text)) }
        for text in args.all("--sort") {
            for part in text.split(separator: ",", omittingEmptySubsequences: false) {
                var name = String(part)
                let descending = name.hasPrefix("-")
                if descending { name.removeFirst() }
                guard !name.isEmpty else { throw CLIError(.usage, "--sort '\(text)' has an empty field name", hint: ListQuery.sortHint) }
                query.sort.append(SortField(name: name, descending: descending))
            }
        }
        if let text = args.value("--limit") {
            guard let n = Int(text), n >= 1 else {
                throw CLIError(.usage, "--limit '\(text)' is not a number of items", hint: "give a whole number of 1 or more, e.g. --limit 20")
            }
            query.limit = n
        }
        let (json, jsonLines) = (args.has("--json"), args.has("--json-lines"))
        if json && jsonLines { throw .usage("--json and --json-lines exclude each other", command: name) }
        query.output = json ? .json : jsonLines ? .jsonLines : .text
        if let text = args.value("--columns") {
            if query.output != .text {
                throw CLIError(.usage, "--columns chooses columns of the text form; JSON output always holds whole items",
                               hint: "drop --columns, or pick fields from the JSON with a tool such as jq")
            }
            query.columns = []
            for part in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard !part.isEmpty else { throw CLIError(.usage, "--columns '\(text)' has an empty column name", hint: ListQuery.columnsHint) }
                query.columns.append(ListColumn(String(part)))
            }
        }
        var color = ListQuery.ColorChoice.auto
        if let text = args.value("--color") {
            guard let choice = ListQuery.ColorChoice(rawValue: text) else {
                throw CLIError(.usage, "--color '\(text)' is not a choice", hint: "give --color auto (colour on a terminal), always or never")
            }
            color = choice
        }
        return Options(query: query, color: color, table: args.value("--table"))
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        var query = options.query
        query.color = ListQuery.colorWanted(options.color, terminal: ctx.terminal, environment: ctx.environment)
        try stream(query, table: options.table, ctx, command: name)
        return ExitCode.ok
    }

    /// Lists through `ListPipeline` in one consistent read; hand-edited item files are listed as
    /// they are, marked, and reported on stderr.
    static func stream(_ query: ListQuery, table named: String?, _ ctx: CommandContext, command: String) throws(CLIError) {
        let store = try StoreAccess.open(ctx, writable: false, command: command)
        let edits = try StoreAccess.read(store, ctx, quiet: true) { s throws(CLIError) -> [HandEdit] in
            let table = try StoreAccess.table(named, s, create: false)
            return try ListPipeline(query: query, table: table, store: s, ctx: ctx).run()
        }
        for edit in edits { StoreAccess.warnHandEdit(edit, ctx) }
    }
}
