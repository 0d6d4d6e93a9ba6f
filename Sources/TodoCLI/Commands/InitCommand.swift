import TodoBasics
import TodoModel
import TodoStore

struct InitCommand: Command {
    static let name = "init"
    static let summary = "create a replica (.todo) here or in DIR"
    static let usage = "init [DIR] [--remote URL] [--app-key KEY] [--protocol mobile-apps|mobile-services]"
    static let discussion = """
        Creates an empty replica: a .todo directory in DIR (default: the current directory).
        The remote is the table server that push and pull talk to; it can be set later.
        """
    static let options: [OptionSpec] = [
        OptionSpec("--remote", .value("URL"), "the table server's base URL (http:// or https://)"),
        OptionSpec("--app-key", .value("KEY"), "the app key sent as X-ZUMO-APPLICATION (or set TODO_APP_KEY)"),
        OptionSpec("--protocol", .value("GEN"), "mobile-apps (default) or mobile-services"),
        OptionSpec("--table", .value("NAME"), "the default table (default: todoitem)"),
        .json,
    ]

    static func run(_ args: ParsedArguments, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let dirArg = try positionals(args, min: 0, max: 1, names: "DIR").first ?? "."
        let dir = dirArg.hasPrefix("/") ? dirArg : ctx.workingDirectory.appendingPath(dirArg)
        let root = normalize(dir).appendingPath(StoreLayout.directoryName)
        var generation = ReplicaConfig.ProtocolGeneration.mobileApps
        if let p = args.value("--protocol") {
            guard let g = ReplicaConfig.ProtocolGeneration(rawValue: p) else {
                throw .usage("'--protocol \(p)' is not a protocol; use mobile-apps or mobile-services", command: name)
            }
            generation = g
        }
        if let remote = args.value("--remote"), let problem = RemoteURL.problem(remote) {
            throw .usage(problem, command: name)
        }
        let table = args.value("--table") ?? TableName.defaultTable
        if let problem = TableName.problem(table) { throw .usage(problem, command: name) }
        let config = ReplicaConfig(remote: args.value("--remote").map(RemoteURL.trimmed), protocolGeneration: generation,
                                   appKey: args.value("--app-key"), defaultTable: table, installationId: ctx.ids.next())
        do { try Store.create(at: root, config: config, fs: ctx.fs) } catch { throw .store(error) }
        if args.has("--json") {
            ctx.console.outRaw(JSONValue(["path": .string(root), "config": config.json]).canonicalBytes())
        } else {
            ctx.console.out("Initialized empty todo replica in \(root)")
        }
        return ExitCode.ok
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

/// Remote URLs: http or https, kept without a trailing slash.
enum RemoteURL {
    static func problem(_ url: String) -> String? {
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), url.count > 8 else {
            return "'\(url)' is not an http:// or https:// URL"
        }
        return nil
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
