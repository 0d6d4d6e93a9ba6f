import TodoModel

struct AddCommand: Command {
    static let name = "add"
    static let summary = "add an item"
    static let usage = "add TEXT [--id ID] [--set FIELD=JSON]... [--table NAME] [--json]"
    static let discussion = """
        Adds an item with the given text (and "complete": false), queues an insert, and prints its id
        (and on stderr its number on this replica, which any command takes instead of the id).
        Without --id the id is a new lower-case UUID. FIELD=JSON sets any other field, e.g.
        --set priority=3 or --set 'note="call Bob"'.
        """
    static let options: [OptionSpec] = [
        OptionSpec("--id", .value("ID"), "the item's id (default: a new UUID)"),
        OptionSpec("--set", .repeated("FIELD=JSON"), "set a field to a JSON string, number or boolean"),
        .table, .json,
    ]

    struct Options {
        var text: String
        /// `--id ID`; nil for a new UUID.
        var id: String?
        /// `--set FIELD=JSON`..., in order.
        var assignments: [(String, JSONValue)] = []
        var table: String?
        var json = false
    }

    static func parse(_ args: ParsedArguments) throws(CLIError) -> Options {
        let text = try positionals(args, min: 1, max: 1, names: "TEXT (the item's text)")[0]
        let id = args.value("--id")
        if let id, let problem = ItemID.problem(id) { throw CLIError(.failure, "invalid id: \(problem)", hint: "choose another id") }
        var assignments: [(String, JSONValue)] = []
        for a in args.all("--set") { assignments.append(try FieldAssignment.parse(a)) }
        return Options(text: text, id: id, assignments: assignments, table: args.value("--table"), json: args.has("--json"))
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let id = options.id ?? ctx.ids.next()
        var fields: [String: JSONValue] = ["text": .string(options.text), "complete": false]
        FieldAssignment.apply(options.assignments, to: &fields)

        let edit = try LocalEdit.begin(ctx, table: options.table, command: name, idArgument: nil, newID: id)
        let plan = try edit.commit(.insert(Item(id: id, fields: fields)), ctx)
        if options.json {
            ctx.console.outRaw(edit.json(plan).canonicalBytes())
        } else {
            // The id alone on stdout, as scripts take it; the number for people on stderr.
            ctx.console.out(id)
            if let number = edit.number() { ctx.console.err("added as number \(number)") }
        }
        return ExitCode.ok
    }
}
