import TableProtocol
import TodoBasics
import TodoModel
import TodoStore
import TodoSync

/// Builds the table client for a replica's remote: URL, generation, app key, timeouts.
enum RemoteAccess {
    static func client(_ store: Store, _ ctx: CommandContext) throws(CLIError) -> (TableClient, RemoteEndpoint, ReplicaConfig) {
        let config: ReplicaConfig
        do { config = try store.config() } catch { throw .store(error) }
        guard let remote = config.remote else {
            throw CLIError(.failure, "this replica has no remote", hint: "set one with 'todo remote set URL'")
        }
        let endpoint = try endpoint(remote)
        let generation: Generation = config.protocolGeneration == .mobileServices ? .mobileServices : .mobileApps
        let appKey: ReplicaAppKey
        do { appKey = try ReplicaAppKey.resolve(store, config, environment: ctx.environment) } catch { throw .store(error) }
        for warning in appKey.warnings(store) { ctx.console.err(warning) }
        let token: ReplicaAuthToken
        do { token = try ReplicaAuthToken.resolve(store, environment: ctx.environment) } catch { throw .store(error) }
        for warning in token.warnings(store) { ctx.console.err(warning) }
        var timeouts = TransportTimeouts()
        if let t = ctx.environment["TODO_CONNECT_TIMEOUT"].flatMap(Double.init), t > 0 { timeouts.connect = t }
        if let t = ctx.environment["TODO_REQUEST_TIMEOUT"].flatMap(Double.init), t > 0 { timeouts.request = t }
        var retry = RetryPolicy()
        if let scale = ctx.environment["TODO_RETRY_WAIT_SCALE"].flatMap(Double.init), scale >= 0 {
            let sleep = retry.sleep
            retry.sleep = { seconds in sleep(seconds * scale) }
        }
        if let caFile = config.caFile {
            try CAFileOption.check(caFile, named: caFile, fs: ctx.fs,
                                   hint: "set a readable one with 'todo remote set --ca-file PATH' ('' for the system's store)")
        }
        let transport = ctx.transport?(endpoint)
            ?? Transports.make(endpoint: endpoint, timeouts: timeouts, caFile: config.caFile, environment: ctx.environment)
        var client = TableClient(transport: transport, generation: generation, basePath: endpoint.basePath, appKey: appKey.key,
                                 authToken: token.token,
                                 installationID: config.installationId, todoVersion: TodoMain.version, retry: retry,
                                 endpoint: endpoint)
        client.replyCounter = ctx.replyCounter
        return (client, endpoint, config)
    }

    static func endpoint(_ url: String) throws(CLIError) -> RemoteEndpoint {
        do { return try RemoteEndpoint(parsing: url) } catch {
            throw CLIError(.failure, "the remote URL is not usable: \(RemoteURLText.sentence(error))", hint: "fix it with 'todo remote set URL'")
        }
    }

    /// Progress on stderr for terminals: "push: 1200/10000 ops, 2400/s".
    static func progress(_ ctx: CommandContext, unit: String) -> @Sendable (SyncProgress) -> Void {
        let console = ctx.console
        return { p in
            let rate = p.elapsed > 0 ? " \(Int(Double(p.done) / p.elapsed))/s" : ""
            let total = p.total.map { "/\($0)" } ?? ""
            console.progress("\(p.phase): \(p.done)\(total) \(unit)\(rate)")
        }
    }
}
