import TodoModel

struct EditCommand: Command {
    static let name = "edit"
    static let summary = "change an item's fields"
    static let usage = "edit ID [--text T] [--complete|--incomplete] [--set FIELD=JSON]... [--unset FIELD]... [--table NAME] [--json]"
    static let discussion = """
        Changes an item and queues an update (or folds the change into the item's pending operation).
        ID may be a unique prefix of the id, ignoring case. Setting a field to null removes it.
        An item whose file (or operation) was edited by hand is refused until the edit is settled:
        --adopt records it as a change, --discard puts back what todo wrote.
        """
    static let options: [OptionSpec] = [
        OptionSpec("--text", .value("T"), "set the text"),
        OptionSpec("--complete", .flag, "mark complete"),
        OptionSpec("--incomplete", .flag, "mark incomplete"),
        OptionSpec("--set", .repeated("FIELD=JSON"), "set a field to a JSON string, number, boolean or null"),
        OptionSpec("--unset", .repeated("FIELD"), "remove a field"),
        OptionSpec("--adopt", .flag, "record the item's edit made by hand (in its file) as a change"),
        OptionSpec("--discard", .flag, "put back what todo wrote over an edit made by hand (a receipt keeps its values)"),
        .table, .json,
    ]

    static func run(_ args: ParsedArguments, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let idArg = try positionals(args, min: 1, max: 1, names: "ID")[0]
        if args.has("--adopt") || args.has("--discard") {
            let others = ["--text", "--set", "--unset"].filter { args.value($0) != nil } + ["--complete", "--incomplete"].filter { args.has($0) }
            if args.has("--adopt") && args.has("--discard") { throw .usage("--adopt and --discard exclude each other", command: name) }
            if let other = others.first { throw .usage("\(args.has("--adopt") ? "--adopt" : "--discard") takes no other change; \(other) excludes it", command: name) }
            return try args.has("--adopt") ? HandEditSettlement.adopt(idArg, args, ctx) : HandEditSettlement.discard(idArg, args, ctx)
        }
        if args.has("--complete") && args.has("--incomplete") {
            throw .usage("--complete and --incomplete exclude each other", command: name)
        }
        var assignments: [(String, JSONValue)] = []
        if let text = args.value("--text") { assignments.append(("text", .string(text))) }
        if args.has("--complete") { assignments.append(("complete", true)) }
        if args.has("--incomplete") { assignments.append(("complete", false)) }
        for a in args.all("--set") { assignments.append(try FieldAssignment.parse(a)) }
        for field in args.all("--unset") {
            if let problem = FieldName.problem(field) { throw CLIError(.failure, problem, hint: "choose another field name") }
            assignments.append((field, .null))
        }
        if assignments.isEmpty {
            throw .usage("nothing to change; give --text, --complete, --incomplete, --set or --unset", command: name)
        }
        return try FieldUpdate.run(name, verb: "updated", assignments, idArg, args, ctx)
    }
}

struct DoneCommand: Command {
    static let name = "done"
    static let summary = "mark an item complete"
    static let usage = "done ID [--table NAME] [--json]"
    static let discussion = "Sets \"complete\": true on the item (an update)."
    static let options: [OptionSpec] = [.table, .json]

    static func run(_ args: ParsedArguments, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let idArg = try positionals(args, min: 1, max: 1, names: "ID")[0]
        return try FieldUpdate.run(name, verb: "completed", [("complete", true)], idArg, args, ctx)
    }
}

struct UndoneCommand: Command {
    static let name = "undone"
    static let summary = "mark an item incomplete"
    static let usage = "undone ID [--table NAME] [--json]"
    static let discussion = "Sets \"complete\": false on the item (an update)."
    static let options: [OptionSpec] = [.table, .json]

    static func run(_ args: ParsedArguments, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let idArg = try positionals(args, min: 1, max: 1, names: "ID")[0]
        return try FieldUpdate.run(name, verb: "reopened", [("complete", false)], idArg, args, ctx)
    }
}

/// edit, done and undone: apply field assignments to the current item as one update.
enum FieldUpdate {
    static func run(_ command: String, verb: String, _ assignments: [(String, JSONValue)], _ idArg: String,
                    _ args: ParsedArguments, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let edit = try LocalEdit.begin(ctx, args, command: command, idArgument: idArg)
        var fields = edit.history.item?.fields ?? [:]
        FieldAssignment.apply(assignments, to: &fields)
        let plan = try edit.commit(.update(fields), ctx)
        if args.has("--json") {
            ctx.console.outRaw(edit.json(plan).canonicalBytes())
        } else {
            ctx.console.out(edit.describe(plan, verb: verb))
        }
        return ExitCode.ok
    }
}

struct RemoveCommand: Command {
    static let name = "rm"
    static let summary = "remove an item"
    static let usage = "rm ID [--table NAME] [--json]"
    static let discussion = "Removes the item locally and queues a delete (or drops a never-sent insert)."
    static let options: [OptionSpec] = [.table, .json]

    static func run(_ args: ParsedArguments, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let idArg = try positionals(args, min: 1, max: 1, names: "ID")[0]
        let edit = try LocalEdit.begin(ctx, args, command: name, idArgument: idArg)
        let plan = try edit.commit(.delete, ctx)
        if args.has("--json") {
            ctx.console.outRaw(edit.json(plan).canonicalBytes())
        } else {
            ctx.console.out(edit.describe(plan, verb: "removed"))
        }
        return ExitCode.ok
    }
}
