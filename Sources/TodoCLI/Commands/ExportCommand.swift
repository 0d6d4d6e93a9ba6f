import TodoModel
import TodoStore

struct ExportCommand: Command {
    static let name = "export"
    static let summary = "print every item of a table as JSON"
    static let usage = "export [--table NAME] [--json-lines]"
    static let discussion = """
        Prints every item of the table (complete or not) as JSON, as 'todo show --json' shows one, in
        the order of 'todo list' (the items' numbers): one array, or with --json-lines one item per line (as
        'jq -c' reads). Any size of table is exported in bounded memory. To export every table, run it
        once per table ('todo status' lists them).
        """
    static let options: [OptionSpec] = [.table, OptionSpec("--json-lines", .flag, "one JSON item per line (as 'jq -c' expects)")]

    struct Options: Equatable {
        var table: String?
        var jsonLines = false
    }

    static func parse(_ args: ParsedArguments) throws(CLIError) -> Options {
        _ = try positionals(args, min: 0, max: 0, names: "")
        return Options(table: args.value("--table"), jsonLines: args.has("--json-lines"))
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        var query = ListQuery()
        query.state = .all
        query.output = options.jsonLines ? .jsonLines : .json
        try ListCommand.stream(query, table: options.table, ctx, command: name)
        return ExitCode.ok
    }
}
