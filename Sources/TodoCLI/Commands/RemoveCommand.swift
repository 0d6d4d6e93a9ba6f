import TodoModel

struct RemoveCommand: Command {
    static let name = "rm"
    static let summary = "remove an item"
    static let usage = "rm ID [--table NAME] [--json]"
    static let discussion = "Removes the item locally and queues a delete (or drops a never-sent insert)."
    static let options: [OptionSpec] = [.table, .json]

    static func parse(_ args: ParsedArguments) throws(CLIError) -> ItemOptions {
        try ItemOptions.parse(args, command: name)
    }

    static func run(_ options: ItemOptions, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let edit = try LocalEdit.begin(ctx, table: options.table, command: name, idArgument: options.id)
        let plan = try edit.commit(.delete, ctx)
        if options.json {
            ctx.console.outRaw(edit.json(plan).canonicalBytes())
        } else {
            ctx.console.out(edit.describe(plan, verb: "removed"))
        }
        return ExitCode.ok
    }
}
