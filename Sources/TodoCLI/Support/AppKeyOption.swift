import TodoBasics
import TodoModel
import TodoStore

/// `--app-key KEY` and `--app-key-file FILE` of `init`, `clone` and `remote set` (issue 17).
///
/// Why both: a command line is visible to every user of the machine (`ps`, `/proc/PID/cmdline`)
/// while the command runs, so a key is better read from a file that only its owner can read.
/// `--app-key` stays for scripts that already use it.
struct AppKeyOption: Equatable {
    /// `--app-key KEY`.
    var key: String?
    /// `--app-key-file FILE`, as given.
    var file: String?

    static let options: [OptionSpec] = [
        OptionSpec("--app-key", .value("KEY"),
                   "the app key sent as X-ZUMO-APPLICATION; other users can see a command line, so prefer --app-key-file"),
        OptionSpec("--app-key-file", .value("FILE"), "read the app key from FILE (its first line)"),
    ]

    /// The two options, of which at most one may be given.
    static func parse(_ args: ParsedArguments, command: String) throws(CLIError) -> AppKeyOption {
        let option = AppKeyOption(key: args.value("--app-key"), file: args.value("--app-key-file"))
        if option.key != nil && option.file != nil {
            throw .usage("give the app key once: --app-key or --app-key-file, not both", command: command)
        }
        return option
    }

    /// The key the options give, read from its file: nil when neither is given, `""` when
    /// `--app-key ''` asks for none.
    func value(_ ctx: CommandContext) throws(CLIError) -> String? {
        guard let file else { return key }
        let path = file.hasPrefix("/") ? file : ctx.workingDirectory.appendingPath(file)
        let bytes: [UInt8]?
        do { bytes = try ctx.fs.readFile(path) } catch {
            throw CLIError(.failure, "cannot read the app key file '\(file)': \(error.reason)", hint: "check the path and its permissions")
        }
        guard let bytes else { throw CLIError(.failure, "the app key file '\(file)' does not exist") }
        // The first line, by bytes: as Characters, "\r\n" is one, and would not split at "\n".
        var line = bytes.prefix { $0 != UInt8(ascii: "\n") }
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        let key = String(decoding: line, as: UTF8.self)
        guard !key.isEmpty else {
            throw CLIError(.failure, "the app key file '\(file)' is empty: its first line must be the key")
        }
        return key
    }
}
