import TodoBasics

/// `--ca-file PATH` of `clone` and `remote set` (issue 20 item 3, as git's `http.sslCAInfo`): the
/// PEM file of the certificate authorities an https remote is trusted with, instead of the
/// system's store, for a private CA. Kept as an absolute path in config.json.
struct CAFileOption: Equatable {
    /// `--ca-file PATH`, as given.
    var file: String?

    static let options: [OptionSpec] = [
        OptionSpec("--ca-file", .value("PATH"), "trust the CAs in this PEM file for an https remote instead of the system's; '' removes it"),
    ]

    static let fix = "give the PEM file of the CA that signed the server's certificate"

    static func parse(_ args: ParsedArguments) -> CAFileOption {
        CAFileOption(file: args.value("--ca-file"))
    }

    /// The absolute path the option gives: nil when it is not given, `""` when `--ca-file ''`
    /// asks for the system's store again. A file that cannot be read or holds no certificate is
    /// refused before anything changes.
    func value(_ ctx: CommandContext) throws(CLIError) -> String? {
        guard let file else { return nil }
        if file.isEmpty { return "" }
        let path = file.hasPrefix("/") ? file : ctx.workingDirectory.appendingPath(file)
        try Self.check(path, named: file, fs: ctx.fs, hint: Self.fix)
        return path
    }

    /// Throws the clear error for a CA file that cannot be used.
    static func check(_ path: String, named name: String, fs: any FileSystem, hint: String) throws(CLIError) {
        let bytes: [UInt8]?
        do { bytes = try fs.readFile(path) } catch {
            throw CLIError(.failure, "cannot read the CA file '\(name)': \(error.reason)", hint: hint)
        }
        guard let bytes else { throw CLIError(.failure, "the CA file '\(name)' does not exist", hint: hint) }
        guard String(decoding: bytes, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
            throw CLIError(.failure, "the CA file '\(name)' holds no PEM certificate (-----BEGIN CERTIFICATE-----)", hint: hint)
        }
    }
}
