import TodoModel
import TodoStore

struct DoctorCommand: Command {
    static let name = "doctor"
    static let summary = "check the whole store and report every problem"
    static let usage = "doctor [--json]"
    static let discussion = """
        Completes an interrupted command if one was cut off (that is not a repair: its commit had
        happened), then checks every file of the .todo directory and the rules that tie operations,
        items and conflicts together. Changes nothing else. Exits 1 when it finds a problem.
        """
    static let options: [OptionSpec] = [.json]

    static func run(_ args: ParsedArguments, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        _ = try positionals(args, min: 0, max: 0, names: "")
        let store = try StoreAccess.open(ctx, writable: true, command: name)
        let report = Doctor.check(store)
        if args.has("--json") {
            let value: JSONValue = [
                "ok": .bool(report.problems.isEmpty),
                "problems": .array(report.problems.map { ["path": .string($0.path), "message": .string($0.message)] }),
                "counts": ["tables": .number(Double(report.tables)), "items": .number(Double(report.items)),
                           "operations": .number(Double(report.operations)), "conflicts": .number(Double(report.conflicts)),
                           "receipts": .number(Double(report.receipts))],
            ]
            ctx.console.outRaw(value.canonicalBytes())
        } else {
            for p in report.problems { ctx.console.out("\(p.path): \(p.message)") }
            let counts = "\(report.tables) tables, \(report.items) items, \(report.operations) pending operations, \(report.conflicts) conflicts, \(report.receipts) receipts"
            ctx.console.out(report.problems.isEmpty ? "ok: \(counts)" : "\(report.problems.count) problems found (\(counts))")
        }
        if !report.problems.isEmpty {
            ctx.console.err("hint: restore or remove the files named above; 'todo doctor' again shows what is left")
            return ExitCode.failure
        }
        return ExitCode.ok
    }
}
