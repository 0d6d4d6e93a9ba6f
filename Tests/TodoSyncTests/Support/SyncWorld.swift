import Synchronization
import Testing
import TableProtocol
import TodoBasics
import TodoModel
import TodoCLI
import TodoSync
import TodoTestSupport
@testable import TodoServer

/// One real table server and any number of replicas (in-process `todo` runs in their own
/// folders), for the acceptance scenarios of sync.md §12.
///
/// `wire` says how replicas reach the server: `.socket`, a real `HTTPServer` on 127.0.0.1:0, or
/// `.inProcess`, an `InProcessTransport` given to each replica's commands (no server thread, no
/// socket; the url's port is a made-up one nothing listens on, so a replica that escaped the seam
/// would fail to connect). Both see the same script and fill the same log.
///
/// `script` sees every request before the real service does and may answer it itself: that
/// is the "scripted server" of the scenarios (faults, other statuses, server variants).
/// Every request and its status are logged.
final class SyncWorld: @unchecked Sendable {
    typealias Script = @Sendable (HTTPRequest, _ service: @Sendable (HTTPRequest) -> HTTPResponse) -> HTTPResponse

    /// How replicas reach the server.
    enum Wire: Sendable {
        /// A real `HTTPServer` on a socket: for timeouts, refused connections, proxies, binaries.
        case socket
        /// `InProcessTransport`: the same service, parsers and serializers, no socket.
        case inProcess
    }

    struct Exchange: Sendable {
        var method: String
        var target: String
        var headers: HTTPHeaders
        var body: [UInt8]
        var status: Int
        var json: JSONValue? { body.isEmpty ? nil : try? JSONValue.parse(body) }
        /// The path without the query.
        var path: String { String(target.split(separator: "?", maxSplits: 1).first ?? "") }
        var isWrite: Bool { method != "GET" }
    }

    let directory = TempDirectory("todo-sync-test")
    let storage: TableStorage
    let service: TableService
    let server: HTTPServer
    let port: Int
    let wire: Wire
    let appKey: String?
    /// How an in-process replica's commands reach this server; nil on the socket.
    let transport: CommandContext.TransportMaker?
    private let shared = Shared()

    /// The server the replicas believe they talk to: ours, or a foreign one's answers (the
    /// `service` that scripts see is this layer over the real service).
    let foreign: ForeignServer

    /// The log and the script, shared with the server's threads.
    final class Shared: Sendable {
        let exchanges = Mutex<[Exchange]>([])
        let script = Mutex<Script?>(nil)
    }

    init(foreign: ForeignServer = .ours, wire: Wire = .socket, _ configure: (inout ServiceConfiguration) -> Void = { _ in }) throws {
        self.foreign = foreign
        self.wire = wire
        var config = ServiceConfiguration()
        config.dynamicTables = true
        configure(&config)
        appKey = config.appKey
        storage = try TableStorage(directory: directory.path.appendingPath("server"))
        service = try TableService(configuration: config, storage: storage)
        let service = self.service
        let shared = self.shared
        let respond: InProcessTransport.Service = { request in
            let real: @Sendable (HTTPRequest) -> HTTPResponse = { foreign.answer($0, { service.respond(to: $0) }) }
            let response = shared.script.withLock { $0 }.map { $0(request, real) } ?? real(request)
            shared.exchanges.withLock {
                $0.append(Exchange(method: request.method, target: request.target, headers: request.headers,
                                   body: request.body, status: response.status))
            }
            return response
        }
        let errorResponse: @Sendable (Int, String) -> HTTPResponse = { service.errorResponse(status: $0, message: $1) }
        let configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        server = HTTPServer(configuration: configuration, respond: respond, errorResponse: errorResponse, log: { _ in })
        switch wire {
        case .socket:
            port = try server.start()
            transport = nil
        case .inProcess:
            let port = Self.unusedPort()
            self.port = port
            transport = { endpoint in
                guard ["127.0.0.1", "localhost"].contains(endpoint.host), endpoint.port == port else {
                    let refused = TransportFailure.cannotConnect(endpoint: endpoint.hostHeader, reason: "no in-process server there")
                    return ScriptedTransport { _ in .failure(refused) }
                }
                return InProcessTransport(host: endpoint.hostHeader, limits: configuration.limits, answer: respond,
                                          errorResponse: errorResponse)
            }
        }
    }

    /// A port for an in-process world's url: nothing listens there (below the ephemeral range the
    /// socket worlds' servers get), and no two worlds share one, so a replica pointed at another
    /// world's url cannot reach this one by mistake.
    private static func unusedPort() -> Int {
        nextPort.withLock { port in
            port += 1
            return port
        }
    }

    private static let nextPort = Mutex(1_024)

    deinit {
        server.stop()
        directory.remove()
    }

    var url: String { "http://127.0.0.1:\(port)" }

    /// Installs (or removes) the scripted behaviour.
    func script(_ script: Script?) { shared.script.withLock { $0 = script } }

    /// Requests seen so far; `reset` starts a new log.
    func requests() -> [Exchange] { shared.exchanges.withLock { $0 } }
    func resetLog() { shared.exchanges.withLock { $0 = [] } }
    func writes() -> [Exchange] { requests().filter(\.isWrite) }

    /// A new replica in `name/`, initialised against this server.
    func replica(_ name: String, protocol generation: String? = nil, extraInit: [String] = [],
                 environment: [String: String] = [:]) -> CLIHarness {
        var env = ["TODO_RETRY_WAIT_SCALE": "0", "TODO_REQUEST_TIMEOUT": "5"]
        env.merge(environment) { $1 }
        let dir = directory.path.appendingPath(name)
        try? LocalFileSystem().createDirectory(dir)
        let harness = CLIHarness(directory: dir, environment: env, transport: transport)
        let result = harness.run(["init", "--remote", url, "--protocol", generation ?? foreign.generation] + extraInit)
        precondition(result.code == 0, "init failed: \(result)")
        return harness
    }

    /// A `todo` for `directory` that reaches this world the way its replicas do (for `clone` and
    /// other commands run outside a replica made by `replica`).
    func harness(_ directory: String, environment: [String: String] = [:]) -> CLIHarness {
        CLIHarness(directory: directory, environment: environment, transport: transport)
    }

    // MARK: Direct access to the server

    /// The server's row, as a G2 client sees it (deleted rows included), or nil.
    func row(_ id: String, table: String = "todoitem") -> JSONValue? {
        let reply = raw("GET", "/tables/\(table)/\(PercentEncoding.encode(id))?__includeDeleted=true")
        return reply.status == 200 ? reply.json : nil
    }

    /// Live rows of a table.
    func rows(table: String = "todoitem") -> [JSONValue] {
        raw("GET", "/tables/\(table)?$top=1000").json?.arrayValue ?? []
    }

    /// One request straight to the service (no socket, no log, no script): for setting the
    /// server up as "another client" would.
    @discardableResult
    func raw(_ method: String, _ target: String, body: JSONValue? = nil, headers: [(String, String)] = [],
             g2: Bool = true) -> Exchange {
        var h = HTTPHeaders(headers)
        if g2 { h.add(name: "ZUMO-API-VERSION", value: "2.0.0") }
        if let appKey, !headers.contains(where: { $0.0.lowercased() == "x-zumo-application" }) {
            h.add(name: "X-ZUMO-APPLICATION", value: appKey)
        }
        if body != nil { h.add(name: "Content-Type", value: "application/json") }
        h.add(name: "Host", value: "127.0.0.1:\(port)")
        let request = HTTPRequest(method: method, target: target, headers: h, body: body?.compactBytes() ?? [])
        let response = service.respond(to: request)
        return Exchange(method: method, target: target, headers: response.headers, body: response.body, status: response.status)
    }
}

extension CLIHarness {
    /// Runs a command and fails the test with its transcript when the exit code differs.
    @discardableResult
    func expect(_ code: Int32, _ args: String..., sourceLocation: SourceLocation = #_sourceLocation) -> CLIResult {
        expect(code, args, sourceLocation: sourceLocation)
    }

    /// `expect` with the arguments as one array.
    @discardableResult
    func expect(_ code: Int32, _ args: [String], sourceLocation: SourceLocation = #_sourceLocation) -> CLIResult {
        let result = run(args)
        if result.code != code {
            Issue.record("todo \(args.joined(separator: " ")): expected exit \(code)\n\(result)", sourceLocation: sourceLocation)
        }
        return result
    }

    /// `todo show ID --json`'s item, or nil.
    func item(_ id: String, table: String = "todoitem") -> [String: JSONValue]? {
        let r = run("show", id, "--table", table, "--json")
        guard r.code == 0, let json = try? JSONValue.parse(r.out) else { return nil }
        return json.objectValue
    }

    /// The store's records under `.todo/<folder>`, parsed.
    func records(_ folder: String) -> [JSONValue] {
        let fs = LocalFileSystem()
        let dir = directory.appendingPath(".todo").appendingPath(folder)
        return ((try? fs.listDirectory(dir)) ?? []).sorted().filter { !$0.hasPrefix(".") }.compactMap { name in
            (try? fs.readFile(dir.appendingPath(name))).flatMap { $0 }.flatMap { try? JSONValue.parse($0) }
        }
    }

    var operations: [JSONValue] { records("operations") }
    var conflicts: [JSONValue] { records("conflicts") }
    var receipts: [JSONValue] { records("receipts") }
}
