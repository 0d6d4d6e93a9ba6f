import TodoModel
import TodoStore
import TodoSync

struct RemoteCommand: Command {
    static let name = "remote"
    static let summary = "show or change the remote table server"
    static let usage = "remote [set [URL] [--app-key KEY] [--protocol GEN] [--page-size N]] [--json]"
    static let discussion = """
        Without arguments, shows the remote URL, the protocol, whether an app key is set, and the
        page size. 'remote set' changes them. A new URL removes every query's delta token (a token
        is a position on one server), so the next pull starts from the beginning; queries, items,
        operations and conflicts are kept.
        """
    static let options: [OptionSpec] = [
        OptionSpec("--app-key", .value("KEY"), "the app key ('' removes it; TODO_APP_KEY is used when none is stored)"),
        OptionSpec("--protocol", .value("GEN"), "mobile-apps or mobile-services"),
        OptionSpec("--page-size", .value("N"), "rows per pull page, 1 to 1000 (default 50)"),
        .json,
    ]

    static func run(_ args: ParsedArguments, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let p = try positionals(args, min: 0, max: 2, names: "")
        if p.isEmpty {
            let store = try StoreAccess.open(ctx, writable: false, command: name)
            let config: ReplicaConfig
            do { config = try store.config() } catch { throw .store(error) }
            show(config, ctx, json: args.has("--json"))
            return ExitCode.ok
        }
        guard p[0] == "set" else { throw .usage("unknown subcommand '\(p[0])'; use 'todo remote' or 'todo remote set URL'", command: name) }
        let url = try p.count > 1 ? RemoteURL.checked(p[1], command: name) : nil
        let generation = try InitCommand.protocolOption(args, command: name)
        var pageSize: Int? = nil
        if let text = args.value("--page-size") {
            guard let n = Int(text), (1...1000).contains(n) else { throw .usage("'--page-size \(text)' must be 1 to 1000", command: name) }
            pageSize = n
        }
        guard url != nil || generation != nil || pageSize != nil || args.value("--app-key") != nil else {
            throw .usage("nothing to set; give a URL or --app-key, --protocol, --page-size", command: name)
        }
        let store = try StoreAccess.open(ctx, writable: true, command: name)
        var tx: StoreTransaction
        var config: ReplicaConfig
        do {
            tx = try store.transaction()
            config = try store.config()
            if let url, url != config.remote {
                config.remote = url
                for table in try store.tables() {
                    guard var t = try store.tableConfig(table) else { continue }
                    t.cursorMode = .cursor
                    for key in t.queries.keys { t.queries[key]?.token = nil }
                    tx.putTableConfig(t)
                }
            }
        } catch { throw .store(error) }
        if let generation { config.protocolGeneration = generation }
        if let pageSize { config.pageSize = pageSize }
        if let key = args.value("--app-key") { config.appKey = key.isEmpty ? nil : key }
        tx.putConfig(config)
        try StoreAccess.commit(tx, store, ctx)
        show(config, ctx, json: args.has("--json"))
        return ExitCode.ok
    }

    static func show(_ config: ReplicaConfig, _ ctx: CommandContext, json: Bool) {
        let keySource = config.appKey != nil ? "set" : (ctx.environment["TODO_APP_KEY"] != nil ? "from TODO_APP_KEY" : "none")
        if json {
            ctx.console.outRaw(JSONValue(["remote": config.remote.map { .string($0) } ?? .null,
                                          "protocol": .string(config.protocolGeneration.rawValue),
                                          "appKey": .string(keySource), "pageSize": .number(Double(config.pageSize))]).canonicalBytes())
            return
        }
        guard let remote = config.remote else {
            ctx.console.out("no remote (set one with 'todo remote set URL')")
            return
        }
        ctx.console.out("remote    \(remote)")
        ctx.console.out("protocol  \(config.protocolGeneration.rawValue)")
        ctx.console.out("app key   \(keySource)")
        ctx.console.out("page size \(config.pageSize)")
    }
}
