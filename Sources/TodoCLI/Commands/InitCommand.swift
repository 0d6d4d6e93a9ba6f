import TodoBasics
import TodoModel
import TodoStore
import TodoSync

struct InitCommand: Command {
    static let name = "init"
    static let summary = "create a replica (.todo) here or in DIR"
    static let usage = "init [DIR] [--remote URL] [--app-key-file FILE | --app-key KEY] [--token-file FILE] [--ca-file PATH] [--protocol mobile-apps|mobile-services]"
    static let discussion = """
        Creates an empty replica: a .todo directory in DIR (default: the current directory).
        The remote is the table server that push and pull talk to; it can be set later.
        The app key is kept in .todo/app-key, readable by you only (or set TODO_APP_KEY); a
        user's token in .todo/auth-token, likewise (or set TODO_AUTH_TOKEN).
        """
    static let options: [OptionSpec] = [
        OptionSpec("--remote", .value("URL"), "the table server's base URL (http:// or https://)"),
    ] + AppKeyOption.options + TokenOption.options + CAFileOption.options + [
        OptionSpec("--protocol", .value("GEN"), "mobile-apps (default) or mobile-services"),
        OptionSpec("--table", .value("NAME"), "the default table (default: todoitem)"),
        .json,
    ]

    struct Options {
        /// DIR, as given.
        var directory = "."
        var replica = ReplicaOptions()
        var json = false
    }

    static func parse(_ args: ParsedArguments) throws(CLIError) -> Options {
        let directory = try positionals(args, min: 0, max: 1, names: "DIR").first ?? "."
        let replica = try ReplicaOptions.parse(args, remote: args.value("--remote"), command: name)
        return Options(directory: directory, replica: replica, json: args.has("--json"))
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let (root, config) = try create(in: options.directory, options.replica, ctx)
        if options.json {
            ctx.console.outRaw(JSONValue(["path": .string(root), "config": JSONOutput.config(config)]).canonicalBytes())
        } else {
            ctx.console.out("Initialized empty todo replica in \(root)")
        }
        return ExitCode.ok
    }

    /// Creates the replica in `dirArg` with the remote settings of the command line (shared with clone).
    static func create(in dirArg: String, _ replica: ReplicaOptions, _ ctx: CommandContext,
                       pageSize: Int = 50) throws(CLIError) -> (root: String, config: ReplicaConfig)
    {
        let dir = dirArg.hasPrefix("/") ? dirArg : ctx.workingDirectory.appendingPath(dirArg)
        let root = normalize(dir).appendingPath(StoreLayout.directoryName)
        let appKey = try replica.appKey.value(ctx).flatMap { $0.isEmpty ? nil : $0 }
        let token = try replica.token.value(ctx).flatMap { $0.isEmpty ? nil : $0 }
        let caFile = try replica.caFile.value(ctx).flatMap { $0.isEmpty ? nil : $0 }
        let config = ReplicaConfig(remote: replica.remote, protocolGeneration: replica.generation, defaultTable: replica.table,
                                   installationId: ctx.ids.next(), pageSize: pageSize, caFile: caFile)
        do {
            try Store.create(at: root, config: config, appKey: appKey, authToken: token, fs: ctx.fs)
        } catch .unfinished(let cause) {
            // The replica is there, but could not be made durable, nor taken back.
            ctx.console.err("warning: the replica is created, but it may not be on disk yet: \(cause.description)")
            ctx.console.err("hint: check the disk, then run 'todo doctor' in it")
        } catch {
            throw .store(error)
        }
        return (root, config)
    }

    /// `--protocol GEN` of init, clone and remote set.
    static func protocolOption(_ args: ParsedArguments, command: String) throws(CLIError) -> ReplicaConfig.ProtocolGeneration? {
        guard let p = args.value("--protocol") else { return nil }
        guard let g = ReplicaConfig.ProtocolGeneration(rawValue: p) else {
            throw .usage("'--protocol \(p)' is not a protocol; use mobile-apps or mobile-services", command: command)
        }
        return g
    }

    /// Removes `.` and `..` components so messages show a clean path.
    static func normalize(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == "." { continue }
            if part == ".." { if !parts.isEmpty { parts.removeLast() }; continue }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }
}

/// What `init` and `clone` make a replica with: its remote, protocol, default table and secrets.
/// The files the secrets are in are read when the replica is made.
struct ReplicaOptions: Equatable {
    var remote: String?
    var generation: ReplicaConfig.ProtocolGeneration = .mobileApps
    var table = TableName.defaultTable
    var appKey = AppKeyOption()
    var token = TokenOption()
    var caFile = CAFileOption()

    /// `remote` is `--remote URL` of init, or clone's URL.
    static func parse(_ args: ParsedArguments, remote: String?, command: String) throws(CLIError) -> ReplicaOptions {
        var o = ReplicaOptions()
        o.generation = try InitCommand.protocolOption(args, command: command) ?? .mobileApps
        o.remote = try remote.map { url throws(CLIError) in try RemoteURL.checked(url, command: command) }
        o.table = args.value("--table") ?? TableName.defaultTable
        if let problem = TableName.problem(o.table) { throw .usage(problem, command: command) }
        o.appKey = try AppKeyOption.parse(args, command: command)
        o.token = TokenOption.parse(args)
        o.caFile = CAFileOption.parse(args)
        return o
    }
}

/// Remote URLs: http or https, kept without a trailing slash.
enum RemoteURL {
    /// The URL as stored, or a usage error saying what is wrong with it.
    static func checked(_ url: String, command: String) throws(CLIError) -> String {
        let trimmed = trimmed(url)
        do { _ = try RemoteEndpoint(parsing: trimmed) } catch { throw .usage(RemoteURLText.sentence(error), command: command) }
        return trimmed
    }

    static func trimmed(_ url: String) -> String {
        var u = url
        while u.hasSuffix("/") { u.removeLast() }
        return u
    }
}

extension JSONValue {
    init(_ object: [String: JSONValue]) { self = .object(object) }
}
