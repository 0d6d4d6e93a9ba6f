import TodoStore

/// A command: a name, its help, its options, and `run`. The dispatcher parses the arguments and
/// handles `--help`; `run` returns the exit code of a command that finished (0, or 3 for open
/// conflicts) and throws `CLIError` for one that stopped.
public protocol Command {
    static var name: String { get }
    /// One line for `todo --help`.
    static var summary: String { get }
    /// The usage line after `todo `.
    static var usage: String { get }
    /// What the command does, for `todo <name> --help`.
    static var discussion: String { get }
    static var options: [OptionSpec] { get }

    static func run(_ args: ParsedArguments, _ ctx: CommandContext) throws(CLIError) -> Int32
}

extension Command {
    static var help: String {
        var lines = ["usage: todo \(usage)", "", discussion]
        let all = options + [OptionSpec("--help", .flag, "show this help")]
        lines.append("")
        lines.append("Options:")
        let rendered = all.map { spec -> (String, String) in
            switch spec.kind {
            case .flag: return (spec.name, spec.help)
            case .value(let p): return ("\(spec.name) \(p)", spec.help)
            case .repeated(let p): return ("\(spec.name) \(p)...", spec.help)
            }
        }
        let width = rendered.map(\.0.count).max() ?? 0
        for (left, right) in rendered {
            lines.append("  " + left + String(repeating: " ", count: width - left.count + 2) + right)
        }
        return lines.joined(separator: "\n")
    }

    /// Positional arguments, checked against the count the command takes.
    static func positionals(_ args: ParsedArguments, min: Int, max: Int, names: String) throws(CLIError) -> [String] {
        let p = args.positionals
        if p.count < min { throw .usage("missing \(names)", command: name) }
        if p.count > max {
            throw .usage("unexpected argument '\(p[max])'", command: name)
        }
        return p
    }
}
