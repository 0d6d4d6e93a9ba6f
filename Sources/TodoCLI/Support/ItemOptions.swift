/// The command line of done, undone and rm: `ID [--table NAME] [--json]`.
struct ItemOptions: Equatable {
    /// ID, as given: a number, an id or a prefix of one.
    var id: String
    var table: String?
    var json = false

    static func parse(_ args: ParsedArguments, command: String) throws(CLIError) -> ItemOptions {
        let id = try args.positionals(min: 1, max: 1, names: "ID", command: command)[0]
        return ItemOptions(id: id, table: args.value("--table"), json: args.has("--json"))
    }
}
