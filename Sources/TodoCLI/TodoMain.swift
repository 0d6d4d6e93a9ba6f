import TodoBasics

/// The entry point: parse the command name, dispatch, and turn every outcome into an exit code.
/// This is the only place that assigns exit codes to errors.
public enum TodoMain {
    public static let version = TodoVersion.current

    public static func run(_ arguments: [String], context ctx: CommandContext) -> Int32 {
        let code = dispatch(arguments, ctx)
        ctx.console.flush()
        return code
    }

    static func dispatch(_ arguments: [String], _ ctx: CommandContext) -> Int32 {
        guard let name = arguments.first else {
            ctx.console.err(CommandTable.overview)
            return ExitCode.usage
        }
        if name == "--help" || name == "-h" || name == "help" {
            if arguments.count > 1, let command = CommandTable.find(arguments[1]) {
                ctx.console.out(command.help)
            } else {
                ctx.console.out(CommandTable.overview)
            }
            return ExitCode.ok
        }
        if name == "--version" {
            ctx.console.out("todo \(version)")
            return ExitCode.ok
        }
        guard let command = CommandTable.find(name) else {
            let known = CommandTable.all.map { type -> String in type.name }
            let hint = Suggestion.hint(for: name, among: known, prefix: "todo ").map { $0 + " ('todo --help' lists every command)" }
                ?? "see 'todo --help' for the list of commands"
            report(.usage("'\(name)' is not a todo command", command: "--help").withHint(hint), ctx)
            return ExitCode.usage
        }
        let rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            ctx.console.out(command.help)
            return ExitCode.ok
        }
        do {
            return try command.run(commandLine: rest, ctx)
        } catch {
            report(error, ctx)
            switch error.kind {
            case .usage: return ExitCode.usage
            case .failure: return ExitCode.failure
            case .network: return ExitCode.network
            case .internal: return ExitCode.failure
            }
        }
    }

    static func report(_ error: CLIError, _ ctx: CommandContext) {
        if error.kind == .internal {
            ctx.console.err("internal error: \(error.message)")
            ctx.console.err("hint: please report this with the output of 'todo doctor'")
            return
        }
        ctx.console.err("error: \(error.message)")
        if let hint = error.hint { ctx.console.err("hint: \(hint)") }
    }
}

extension CLIError {
    func withHint(_ hint: String) -> CLIError {
        var copy = self
        copy.hint = hint
        return copy
    }
}
