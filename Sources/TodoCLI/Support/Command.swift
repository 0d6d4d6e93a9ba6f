import TodoStore

/// A command: a name, its help, its options, and `run`. The dispatcher handles `--help`, splits
/// the words by the option specs (`ArgumentParser`), and `parse` turns them, once, into the
/// command's `Options`: typed values, with every usage error of the command line found there, so
/// `run` never looks an option up by its name. `run` returns the exit code of a command that
/// finished (0, or 3 for open conflicts) and throws `CLIError` for one that stopped.
public protocol Command {
    /// The command line, checked: flags as `Bool`, values typed, repeated ones as arrays.
    associatedtype Options
    static var name: String { get }
    /// One line for `todo --help`.
    static var summary: String { get }
    /// The usage line after `todo `.
    static var usage: String { get }
    /// What the command does, for `todo <name> --help`.
    static var discussion: String { get }
    /// What help, the man page and completion show, and what `ArgumentParser` accepts.
    static var options: [OptionSpec] { get }

    /// Reads the split command line into `Options`; throws what is wrong with it: usage errors
    /// (bad values, options that exclude each other, wrong numbers of arguments) and, exit 1 as
    /// ever, values the store would refuse (an invalid `--id` or field name). Touches nothing
    /// else: files that options name are read by `run`.
    static func parse(_ args: ParsedArguments) throws(CLIError) -> Options

    static func run(_ options: Options, _ ctx: CommandContext) throws(CLIError) -> Int32
}

extension Command {
    /// The words after the command's name, split and parsed: what `run` gets.
    static func parse(commandLine words: [String]) throws(CLIError) -> Options {
        try parse(ArgumentParser.parse(words, options: options, command: name))
    }

    /// Parses, then runs: how the dispatcher starts a command.
    static func run(commandLine words: [String], _ ctx: CommandContext) throws(CLIError) -> Int32 {
        try run(parse(commandLine: words), ctx)
    }

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
        try args.positionals(min: min, max: max, names: names, command: name)
    }
}
