import TodoBasics

/// `--token-file FILE` of `init`, `clone` and `remote set` (issue 17 item 7): a user's token,
/// issued by `todo-server user add NAME`, sent as X-ZUMO-AUTH. Only from a file: a command line
/// is visible to every user of the machine.
enum TokenOption {
    static let options: [OptionSpec] = [
        OptionSpec("--token-file", .value("FILE"), "read a user's token (X-ZUMO-AUTH) from FILE (its first line); '' removes it"),
    ]

    /// The token the option gives: nil when it is not given, `""` when `--token-file ''` asks for none.
    static func value(_ args: ParsedArguments, _ ctx: CommandContext, command: String) throws(CLIError) -> String? {
        guard let file = args.value("--token-file") else { return nil }
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
