import TodoModel

struct DoneCommand: Command {
    static let name = "done"
    static let summary = "mark an item complete"
    static let usage = "done ID [--table NAME] [--json]"
    static let discussion = "Sets \"complete\": true on the item (an update)."
    static let options: [OptionSpec] = [.table, .json]

    static func parse(_ args: ParsedArguments) throws(CLIError) -> ItemOptions {
        try ItemOptions.parse(args, command: name)
    }

    static func run(_ options: ItemOptions, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        try FieldUpdate.run(name, verb: "completed", [("complete", true)], options.id, table: options.table, json: options.json, ctx)
    }
}
