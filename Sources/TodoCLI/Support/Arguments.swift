/// One option a command accepts.
public struct OptionSpec: Sendable {
    public enum Kind: Sendable, Equatable {
        case flag
        case value(String)
        /// May be given several times; values are kept in order.
        case repeated(String)
    }

    public var name: String
    public var kind: Kind
    public var help: String

    public init(_ name: String, _ kind: Kind = .flag, _ help: String) {
        self.name = name
        self.kind = kind
        self.help = help
    }

    static let table = OptionSpec("--table", .value("NAME"), "the table (default: the replica's default, 'todoitem')")
    static let json = OptionSpec("--json", .flag, "print JSON (a stable contract, see README)")
}

/// Parsed command-line arguments: flags, option values, positionals. Only a command's `parse`
/// reads them, by the names its option specs declare.
public struct ParsedArguments: Sendable {
    public var flags: Set<String> = []
    public var values: [String: [String]] = [:]
    public var positionals: [String] = []
    /// The names the command declares: asking for another is a slip in its `parse` (a typo would
    /// read as an option never given), so it stops there, in the first test that passes it.
    var declared: Set<String> = []

    public func has(_ flag: String) -> Bool { declare(flag); return flags.contains(flag) }
    public func value(_ name: String) -> String? { declare(name); return values[name]?.last }
    public func all(_ name: String) -> [String] { declare(name); return values[name] ?? [] }

    /// The positionals, checked against the count the command takes.
    func positionals(min: Int, max: Int, names: String, command: String) throws(CLIError) -> [String] {
        if positionals.count < min { throw .usage("missing \(names)", command: command) }
        if positionals.count > max {
            throw .usage("unexpected argument '\(positionals[max])'", command: command)
        }
        return positionals
    }

    private func declare(_ name: String) {
        precondition(declared.contains(name), "'\(name)' is not an option this command declares")
    }
}

/// A small parser in the shape of git's and swift-argument-parser's: `--name value`,
/// `--name=value`, `--` ends options, unknown options are usage errors naming the command.
enum ArgumentParser {
    static func parse(_ args: [String], options: [OptionSpec], command: String) throws(CLIError) -> ParsedArguments {
        var parsed = ParsedArguments(declared: Set(options.map(\.name)))
        var index = 0
        var onlyPositionals = false
        while index < args.count {
            let arg = args[index]
            index += 1
            if onlyPositionals || !arg.hasPrefix("--") || arg == "-" {
                if !onlyPositionals && arg.hasPrefix("-") && arg.count > 1 && arg != "-" && !isNumber(arg) {
                    var error = CLIError.usage("unknown option '\(arg)' for 'todo \(command)'", command: command)
                    let known = options.map(\.name) + ["--help"]
                    if let hint = Suggestion.hint(for: "-" + arg, among: known) { error.hint = hint + " (see 'todo \(command) --help')" }
                    throw error
                }
                parsed.positionals.append(arg)
                continue
            }
            if arg == "--" { onlyPositionals = true; continue }
            var name = arg
            var inline: String? = nil
            if let eq = arg.firstIndex(of: "=") {
                name = String(arg[..<eq])
                inline = String(arg[arg.index(after: eq)...])
            }
            guard let spec = options.first(where: { $0.name == name }) else {
                var error = CLIError.usage("unknown option '\(name)' for 'todo \(command)'", command: command)
                let known = options.map(\.name) + ["--help"]
                if let hint = Suggestion.hint(for: name, among: known) { error.hint = hint + " (see 'todo \(command) --help')" }
                throw error
            }
            switch spec.kind {
            case .flag:
                if inline != nil { throw .usage("option '\(name)' takes no value", command: command) }
                parsed.flags.insert(name)
            case .value(let placeholder), .repeated(let placeholder):
                let value: String
                if let inline {
                    value = inline
                } else {
                    guard index < args.count else {
                        throw .usage("option '\(name)' needs a value (\(name) \(placeholder))", command: command)
                    }
                    value = args[index]
                    index += 1
                }
                if case .value = spec.kind, parsed.values[name] != nil {
                    throw .usage("option '\(name)' was given more than once", command: command)
                }
                parsed.values[name, default: []].append(value)
            }
        }
        return parsed
    }

    private static func isNumber(_ s: String) -> Bool { Double(s) != nil }
}
