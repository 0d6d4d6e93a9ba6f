import Testing
import TableProtocol
import TodoBasics
import TodoModel
import TodoStore
@testable import TodoSync
import TodoTestSupport
@testable import TodoServer

/// Issue 16 item 2: the in-process transport carries a request to the real service as a socket
/// would (the client's framing, the server's parser, the client's response parser), so engines
/// and commands run against the real server without one.
@Suite struct InProcessTransportTests {
    static func service(_ dir: TempDirectory) throws -> TableService {
        var config = ServiceConfiguration()
        config.dynamicTables = true
        return try TableService(configuration: config, storage: TableStorage(directory: dir.sub("server")))
    }

    static let g2: [(String, String)] = [("ZUMO-API-VERSION", "2.0.0")]

    @Test("the server sees the Host and Content-Length the client's serializer writes, and the exchange is logged")
    func framingHeadersReachTheServer() throws {
        let dir = TempDirectory("todo-in-process")
        defer { dir.remove() }
        let transport = InProcessTransport(service: try Self.service(dir), host: "todo.example:8080")
        let body = JSONValue.object(["id": "x", "text": "a"]).compactBytes()
        let request = HTTPRequest(method: "POST", target: "/tables/todoitem",
                                  headers: HTTPHeaders(Self.g2 + [("Content-Type", "application/json")]), body: body)
        let response = try transport.send(request).get()
        #expect(response.status == 201)
        #expect(try JSONValue.parse(response.body)["id"] == "x")
        let exchange = try #require(transport.exchanges.first)
        #expect(transport.exchanges.count == 1)
        #expect(exchange.request.headers["Host"] == "todo.example:8080")
        #expect(exchange.request.headers["Content-Length"] == "\(body.count)")
        #expect(exchange.request.body == body)
        #expect(exchange.response.status == 201)
    }

    @Test("a request the server's parser refuses gets the server's own 400; the script never sees it")
    func unparsableRequestGetsTheServersAnswer() throws {
        let dir = TempDirectory("todo-in-process")
        defer { dir.remove() }
        let scripted = Scripted.Counter()
        let transport = InProcessTransport(service: try Self.service(dir), script: { request, service in
            _ = scripted.next()
            return service(request)
        })
        let request = HTTPRequest(method: "GET", target: "/tables/todoitem", headers: HTTPHeaders([("Bad Name", "x")]))
        let response = try transport.send(request).get()
        #expect(response.status == 400)
        #expect(scripted.count == 0 && transport.exchanges.isEmpty)
    }

    @Test("a push through the engine lands on the real service, every request through the script")
    func pushThroughTheEngine() throws {
        let dir = TempDirectory("todo-in-process")
        defer { dir.remove() }
        let service = try Self.service(dir)
        let store = try UnreachableServerTests.replica(dir, pending: 3)
        let scripted = Scripted.Counter()
        let transport = InProcessTransport(service: service, host: "127.0.0.1:9", script: { request, service in
            _ = scripted.next()
            return service(request)
        })
        let client = TableClient(transport: transport, generation: .mobileApps, basePath: "", appKey: nil,
                                 installationID: "test", todoVersion: "test", retry: RetryPolicy(jitter: { 0 }, sleep: { _ in }))
        let report = try PushEngine(store: store, client: client, clock: .fixed(0)).run(PushEngine.Options())
        #expect(report.stop == nil)
        #expect(report.remaining == 0)
        #expect(try store.operations().isEmpty)
        let rows = service.respond(to: HTTPRequest(method: "GET", target: "/tables/todoitem", headers: HTTPHeaders(Self.g2)))
        let ids = try JSONValue.parse(rows.body).arrayValue?.compactMap { $0["id"]?.stringValue }.sorted()
        #expect(ids == ["i0", "i1", "i2"])
        #expect(scripted.count == transport.exchanges.count && transport.exchanges.count >= 3)
        #expect(transport.exchanges.filter { $0.request.method == "POST" }.count == 3)
    }
}
