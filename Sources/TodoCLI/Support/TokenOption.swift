import TodoBasics

/// `--token-file FILE` of `init`, `clone` and `remote set` (issue 17 item 7): a user's token,
/// issued by `todo-server user add NAME`, sent as X-ZUMO-AUTH. Only from a file: a command line
/// is visible to every user of the machine.
struct TokenOption: Equatable {
    /// `--token-file FILE`, as given.
    var file: String?

    static let options: [OptionSpec] = [
        OptionSpec("--token-file", .value("FILE"), "read a user's token (X-ZUMO-AUTH) from FILE (its first line); '' removes it"),
    ]

    static func parse(_ args: ParsedArguments) -> TokenOption {
        TokenOption(file: args.value("--token-file"))
    }

    /// The token the option gives, read from its file: nil when it is not given, `""` when
    /// `--token-file ''` asks for none.
    func value(_ ctx: CommandContext) throws(CLIError) -> String? {
        guard let file else { return nil }
        if file.isEmpty { return "" }
        let path = file.hasPrefix("/") ? file : ctx.workingDirectory.appendingPath(file)
        let bytes: [UInt8]?
        do { bytes = try ctx.fs.readFile(path) } catch {
            throw CLIError(.failure, "cannot read the token file '\(file)': \(error.reason)", hint: "check the path and its permissions")
        }
        guard let bytes else { throw CLIError(.failure, "the token file '\(file)' does not exist") }
        // The first line, by bytes: as Characters, "\r\n" is one, and would not split at "\n".
        var line = bytes.prefix { $0 != UInt8(ascii: "\n") }
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        let token = String(decoding: line, as: UTF8.self)
        guard !token.isEmpty else {
            throw CLIError(.failure, "the token file '\(file)' is empty: its first line must be the token "
                + "(todo-server user add NAME prints one)")
        }
        return token
    }
}
