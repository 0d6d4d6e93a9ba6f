import TodoModel
import TodoStore
import TodoSync

struct RemoteCommand: Command {
    static let name = "remote"
    static let summary = "show or change the remote table server"
    static let usage = "remote [set [URL] [--app-key-file FILE | --app-key KEY] [--token-file FILE] [--ca-file PATH] [--protocol GEN] [--page-size N]] [--json]"
    static let discussion = """
        Without arguments, shows the remote URL, the protocol, where the app key and the user's
        token come from (never the key or token), and the page size. 'remote set' changes them. A new URL removes every query's
        delta token (a token is a position on one server), so the next pull starts from the
        beginning; queries, items, operations and conflicts are kept. The app key is kept in
        .todo/app-key, readable by you only ('' removes it; TODO_APP_KEY is used when none is
        stored). A replica made by an older todo keeps its key in config.json: 'todo remote set'
        moves it. A user's token (from 'todo-server user add NAME') is kept in .todo/auth-token,
        readable by you only, and sent as X-ZUMO-AUTH (--token-file '' removes it;
        TODO_AUTH_TOKEN is used when none is stored). --ca-file trusts the CAs in a PEM file for an
        https remote instead of the system's store (a private CA; '' goes back to the system's).
        """
    static let options: [OptionSpec] = AppKeyOption.options + TokenOption.options + CAFileOption.options + [
        OptionSpec("--protocol", .value("GEN"), "mobile-apps or mobile-services"),
        OptionSpec("--page-size", .value("N"), "rows per pull page, 1 to 1000 (default 50)"),
        .json,
    ]

    struct Options {
        /// `todo remote` shows the settings; `todo remote set` changes them.
        enum Action { case show, set(Settings) }
        /// What `remote set` changes: nil (or unset options) leave a setting as it is.
        struct Settings: Equatable {
            var url: String?
            var generation: ReplicaConfig.ProtocolGeneration?
            var pageSize: Int?
            var appKey = AppKeyOption()
            var token = TokenOption()
            var caFile = CAFileOption()
        }
        var action: Action
        var json = false
    }

    /// The options of `set` are checked only for `set`: `todo remote` alone ignores them.
    static func parse(_ args: ParsedArguments) throws(CLIError) -> Options {
        let p = try positionals(args, min: 0, max: 2, names: "")
        guard !p.isEmpty else { return Options(action: .show, json: args.has("--json")) }
        guard p[0] == "set" else { throw .usage("unknown subcommand '\(p[0])'; use 'todo remote' or 'todo remote set URL'", command: name) }
        var set = Options.Settings()
        set.url = try p.count > 1 ? RemoteURL.checked(p[1], command: name) : nil
        set.generation = try InitCommand.protocolOption(args, command: name)
        if let text = args.value("--page-size") {
            guard let n = Int(text), (1...1000).contains(n) else { throw .usage("'--page-size \(text)' must be 1 to 1000", command: name) }
            set.pageSize = n
        }
        set.appKey = try AppKeyOption.parse(args, command: name)
        set.token = TokenOption.parse(args)
        set.caFile = CAFileOption.parse(args)
        return Options(action: .set(set), json: args.has("--json"))
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        guard case .set(let set) = options.action else {
            let store = try StoreAccess.open(ctx, writable: false, command: name)
            let config: ReplicaConfig
            let key: ReplicaAppKey
            let token: ReplicaAuthToken
            do {
                config = try store.config()
                key = try ReplicaAppKey.resolve(store, config, environment: ctx.environment)
                token = try ReplicaAuthToken.resolve(store, environment: ctx.environment)
            } catch { throw .store(error) }
            for warning in key.warnings(store) + token.warnings(store) { ctx.console.err(warning) }
            show(config, key.source, token.source, ctx, json: options.json)
            return ExitCode.ok
        }
        let (url, generation, pageSize) = (set.url, set.generation, set.pageSize)
        let newKey = try set.appKey.value(ctx)
        let newToken = try set.token.value(ctx)
        let newCAFile = try set.caFile.value(ctx)
        let store = try StoreAccess.open(ctx, writable: true, command: name)
        var tx: StoreTransaction
        var config: ReplicaConfig
        var source: ReplicaAppKey.Source
        var tokenSource: ReplicaAuthToken.Source
        let previousToken: SecretFile.Stored?
        do {
            tx = try store.transaction()
            config = try store.config()
            source = try ReplicaAppKey.resolve(store, config, environment: ctx.environment).source
            tokenSource = try ReplicaAuthToken.resolve(store, environment: ctx.environment).source
            previousToken = try SecretFile.authToken.read(store)
        } catch { throw .store(error) }
        // A key an older todo left in config.json moves to .todo/app-key: with no other change asked
        // for, that is all this does.
        let keyToWrite: String?? = newKey.map { $0.isEmpty ? nil : $0 } ?? config.legacyAppKey.map { .some($0) }
        guard url != nil || generation != nil || pageSize != nil || keyToWrite != nil || newToken != nil || newCAFile != nil else {
            throw .usage("nothing to set; give a URL or --app-key-file, --app-key, --token-file, --ca-file, --protocol, --page-size", command: name)
        }
        // Another token is another user: on an owner table the server shows other rows, so, as for
        // a new URL, every pull starts again from the beginning.
        let urlChanges = url.map { $0 != config.remote } ?? false
        let tokenChanges = newToken.map { ($0.isEmpty ? nil : $0) != previousToken?.key } ?? false
        do {
            if let url { config.remote = url }
            if urlChanges || tokenChanges {
                for table in try store.tables() {
                    guard var t = try store.tableConfig(table) else { continue }
                    t.cursorMode = .cursor
                    t.hardDelete = false  // learnt from the old server
                    for key in t.queries.keys { t.queries[key]?.token = nil }
                    tx.putTableConfig(t)
                }
            }
        } catch { throw .store(error) }
        if let generation { config.protocolGeneration = generation }
        if let pageSize { config.pageSize = pageSize }
        if let newCAFile { config.caFile = newCAFile.isEmpty ? nil : newCAFile }
        // The key file first: the config written next no longer holds a key, so it must not be
        // written unless the key is safe. If the commit then fails, the old key file is put back.
        var previousKey: AppKeyFile.Stored?
        if let keyToWrite {
            do {
                previousKey = try AppKeyFile.read(store)
                try AppKeyFile.write(keyToWrite, in: store)
            } catch { throw .store(error) }
            config.legacyAppKey = nil
            let fromEnvironment = !(ctx.environment["TODO_APP_KEY"] ?? "").isEmpty
            source = keyToWrite != nil ? .file : fromEnvironment ? .environment : .none
        }
        if let newToken {
            do {
                try SecretFile.authToken.write(newToken.isEmpty ? nil : newToken, in: store)
            } catch {
                if keyToWrite != nil { try? AppKeyFile.write(previousKey?.key, in: store) }
                throw .store(error)
            }
            let fromEnvironment = !(ctx.environment[ReplicaAuthToken.environmentName] ?? "").isEmpty
            tokenSource = !newToken.isEmpty ? .file : fromEnvironment ? .environment : .none
        }
        tx.putConfig(config)
        do {
            try StoreAccess.commit(tx, store, ctx)
        } catch {
            if keyToWrite != nil { try? AppKeyFile.write(previousKey?.key, in: store) }
            if newToken != nil { try? SecretFile.authToken.write(previousToken?.key, in: store) }
            throw error
        }
        show(config, source, tokenSource, ctx, json: options.json)
        return ExitCode.ok
    }

    /// Where the key comes from, never the key.
    static func keyText(_ source: ReplicaAppKey.Source) -> String {
        switch source {
        case .file: "set (.todo/app-key)"
        case .config: "set in .todo/config.json (run 'todo remote set' to move it to .todo/app-key)"
        case .environment: "from TODO_APP_KEY"
        case .none: "none"
        }
    }

    /// Where the token comes from, never the token.
    static func tokenText(_ source: ReplicaAuthToken.Source) -> String {
        switch source {
        case .file: "set (.todo/auth-token)"
        case .environment: "from \(ReplicaAuthToken.environmentName)"
        case .none: "none"
        }
    }

    static func show(_ config: ReplicaConfig, _ source: ReplicaAppKey.Source, _ tokenSource: ReplicaAuthToken.Source,
                     _ ctx: CommandContext, json: Bool) {
        if json {
            ctx.console.outRaw(JSONValue(["remote": config.remote.map { .string($0) } ?? .null,
                                          "protocol": .string(config.protocolGeneration.rawValue),
                                          "appKey": .string(source.rawValue), "token": .string(tokenSource.rawValue),
                                          "pageSize": .number(Double(config.pageSize)),
                                          "caFile": config.caFile.map { .string($0) } ?? .null]).canonicalBytes())
            return
        }
        guard let remote = config.remote else {
            ctx.console.out("no remote (set one with 'todo remote set URL')")
            return
        }
        ctx.console.out("remote    \(remote)")
        ctx.console.out("protocol  \(config.protocolGeneration.rawValue)")
        ctx.console.out("app key   \(keyText(source))")
        ctx.console.out("token     \(tokenText(tokenSource))")
        ctx.console.out("page size \(config.pageSize)")
        if let caFile = config.caFile { ctx.console.out("CA file   \(caFile)") }
    }
}
