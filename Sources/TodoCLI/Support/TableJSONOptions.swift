/// The options of a command that works on one table or all of them and prints text or `--json`
/// (`log`, `sync`): one shape, parsed in one place.
struct TableJSONOptions: Equatable {
    /// nil: every table.
    var table: String?
    var json = false
}

extension Command where Options == TableJSONOptions {
    static func parse(_ args: ParsedArguments) throws(CLIError) -> Options {
        _ = try positionals(args, min: 0, max: 0, names: "")
        return Options(table: args.value("--table"), json: args.has("--json"))
    }
}
