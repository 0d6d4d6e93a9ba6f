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

    struct Options {
        /// What the command does to the item: change fields, or settle an edit made by hand.
        enum Action { case change([(String, JSONValue)]), adopt, discard }
        /// ID, as given: a number, an id or a prefix of one.
        var id: String
        var action: Action
        var table: String?
        var json = false
    }

    static func parse(_ args: ParsedArguments) throws(CLIError) -> Options {
        let id = try positionals(args, min: 1, max: 1, names: "ID")[0]
        let (table, json) = (args.value("--table"), args.has("--json"))
        let (text, sets, unsets) = (args.value("--text"), args.all("--set"), args.all("--unset"))
        let (complete, incomplete, adopt, discard) = (args.has("--complete"), args.has("--incomplete"), args.has("--adopt"), args.has("--discard"))
        if adopt || discard {
            let others = [("--text", text != nil), ("--set", !sets.isEmpty), ("--unset", !unsets.isEmpty),
                          ("--complete", complete), ("--incomplete", incomplete)].filter { $0.1 }.map(\.0)
            if adopt && discard { throw .usage("--adopt and --discard exclude each other", command: name) }
            if let other = others.first { throw .usage("\(adopt ? "--adopt" : "--discard") takes no other change; \(other) excludes it", command: name) }
            return Options(id: id, action: adopt ? .adopt : .discard, table: table, json: json)
        }
        if complete && incomplete {
            throw .usage("--complete and --incomplete exclude each other", command: name)
        }
        var assignments: [(String, JSONValue)] = []
        if let text { assignments.append(("text", .string(text))) }
        if complete { assignments.append(("complete", true)) }
        if incomplete { assignments.append(("complete", false)) }
        for a in sets { assignments.append(try FieldAssignment.parse(a)) }
        for field in unsets {
            if let problem = FieldName.problem(field) { throw CLIError(.failure, problem, hint: "choose another field name") }
            assignments.append((field, .null))
        }
        if assignments.isEmpty {
            throw .usage("nothing to change; give --text, --complete, --incomplete, --set or --unset", command: name)
        }
        return Options(id: id, action: .change(assignments), table: table, json: json)
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        switch options.action {
        case .adopt: return try HandEditSettlement.adopt(options.id, table: options.table, json: options.json, ctx)
        case .discard: return try HandEditSettlement.discard(options.id, table: options.table, ctx)
        case .change(let assignments):
            return try FieldUpdate.run(name, verb: "updated", assignments, options.id, table: options.table, json: options.json, ctx)
        }
    }
}

/// edit, done and undone: apply field assignments to the current item as one update.
enum FieldUpdate {
    static func run(_ command: String, verb: String, _ assignments: [(String, JSONValue)], _ idArg: String,
                    table: String?, json: Bool, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let edit = try LocalEdit.begin(ctx, table: table, command: command, idArgument: idArg)
        var fields = edit.history.item?.fields ?? [:]
        FieldAssignment.apply(assignments, to: &fields)
        let plan = try edit.commit(.update(fields), ctx)
        if json {
            ctx.console.outRaw(edit.json(plan).canonicalBytes())
        } else {
            ctx.console.out(edit.describe(plan, verb: verb))
        }
        return ExitCode.ok
    }
}
