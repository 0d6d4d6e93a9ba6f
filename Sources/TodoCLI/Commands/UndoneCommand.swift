import TodoModel

struct UndoneCommand: Command {
    static let name = "undone"
    static let summary = "mark an item incomplete"
    static let usage = "undone ID [--table NAME] [--json]"
    static let discussion = "Sets \"complete\": false on the item (an update)."
    static let options: [OptionSpec] = [.table, .json]

    static func parse(_ args: ParsedArguments) throws(CLIError) -> ItemOptions {
        try ItemOptions.parse(args, command: name)
    }

    static func run(_ options: ItemOptions, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        try FieldUpdate.run(name, verb: "reopened", [("complete", false)], options.id, table: options.table, json: options.json, ctx)
    }
}
