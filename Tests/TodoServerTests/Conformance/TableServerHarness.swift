import PostgresClient
import Testing
import TableProtocol
import TodoBasics
import TodoModel
import TodoTestSupport
@testable import TodoServer

/// A real `todo-server` stack (storage in a temp folder, the service, the socket loop on
/// 127.0.0.1:0) and a client that speaks raw HTTP to it, as the conformance checklist asks.
final class TableServerHarness: @unchecked Sendable {
    let directory: TempDirectory
    /// False when the directory came from another harness (a restart), which removes it.
    private let ownsDirectory: Bool
    /// Where the tables are: the embedded store, or a fresh database on the shared PostgreSQL test cluster.
    let backend: Backend
    let store: any TableStore
    /// The embedded store, for tests of it alone.
    var storage: TableStorage { store as! TableStorage }
    /// The PostgreSQL database, kept while any node serves it.
    let database: TestDatabase?
    let service: TableService
    let server: HTTPServer
    let port: Int
    /// The server's request log, one line per request.
    let logLines = LogLines()

    /// Fixed columns of the checklist's `todoitem`: text, complete, priority, note. `reopening`: the
    /// directory of an earlier harness, to restart on its data (stop and close that one first);
    /// `io`: the log's system calls (a test's faults).
    /// `joining`: a database another harness serves (PostgreSQL only): one more node on it.
    init(backend: Backend = .embedded, joining shared: TestDatabase? = nil, reopening: TempDirectory? = nil, io: any LogFileIO = SystemLogFileIO(), limits: StorageLimits = StorageLimits(),
         _ configure: (inout ServiceConfiguration) -> Void = { _ in },
         http: (inout HTTPServerConfiguration) -> Void = { _ in }) throws {
        directory = reopening ?? TempDirectory("todo-server-test")
        ownsDirectory = reopening == nil
        var config = ServiceConfiguration()
        configure(&config)
        let logLines = self.logLines
        self.backend = backend
        switch backend {
        case .embedded:
            database = nil
            store = try TableStorage(directory: directory.sub("data"), clock: .live, tuning: .init(), limits: limits, io: io,
                                     onFailure: { logLines.append(ServerMain.failureLine($0)) })
        case .postgres:
            let database = try shared ?? TestDatabase()
            self.database = database
            store = try PostgresTableStore(config: database.config, limits: limits)
        }
        service = try TableService(configuration: config, store: store)
        let service = self.service
        var httpConfiguration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        http(&httpConfiguration)
        server = HTTPServer(configuration: httpConfiguration,
                            answer: { service.answer(to: $0) },
                            errorResponse: { service.errorResponse(status: $0, message: $1) },
                            log: { logLines.append($0) })
        port = try server.start()
        // The checklist's columns: text (string), complete (boolean), priority (number), note (string).
        if try store.schema("todoitem") != nil {
            try store.write("todoitem") { w in
                for (name, type) in [("text", ColumnType.string), ("complete", .boolean), ("priority", .number), ("note", .string)] {
                    w.setColumnType(name, type)
                }
            }
        }
    }

    deinit {
        server.stop()
        if backend == .postgres { store.close() }
        if ownsDirectory { directory.remove() }
    }

    struct Reply: CustomStringConvertible {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]
        var json: JSONValue? { try? JSONValue.parse(body) }
        var object: [String: JSONValue] { json?.objectValue ?? [:] }
        var array: [JSONValue] { json?.arrayValue ?? [] }
        var text: String { String(decoding: body, as: UTF8.self) }
        var description: String { "\(status) \(text)" }
    }

    /// One request on a fresh connection. `g2` adds `ZUMO-API-VERSION: 2.0.0`. `allowing503`: the
    /// test expects the storage to be unavailable, so a 503 is not a failure of checklist 138.
    /// `receiveTimeout`: longer for a request the test holds up on purpose.
    @discardableResult
    func send(_ method: String, _ target: String, g2: Bool = true, headers: [(String, String)] = [],
              body: String? = nil, allowing503: Bool = false, from source: String? = nil,
              receiveTimeout: Duration = .seconds(10)) throws -> Reply {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        if g2 { head += "ZUMO-API-VERSION: 2.0.0\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let bytes = Array((body ?? "").utf8)
        if body != nil { head += "Content-Length: \(bytes.count)\r\n" }
        head += "Connection: close\r\n\r\n"
        let client = try RawHTTPClient(port: port, receiveTimeout: receiveTimeout, from: source)
        defer { client.close() }
        try client.send(Array(head.utf8) + bytes)
        let response = try client.readResponse(method: method)
        let reply = Reply(status: response.status, headers: response.headers, body: response.body)
        // Checklist 138: no request ever answers 500. (507 is a quota's answer, issue 17: tests expect it.)
        if reply.status >= 500 && reply.status != 507 && !(allowing503 && reply.status == 503) {
            Issue.record("\(method) \(target) answered \(reply)")
        }
        return reply
    }

    /// Inserts an item (G2) and returns the server's copy.
    @discardableResult
    func insert(_ json: String, table: String = "todoitem") throws -> [String: JSONValue] {
        let reply = try send("POST", "/tables/\(table)", body: json)
        precondition(reply.status == 201, "setup insert failed: \(reply)")
        return reply.object
    }
}

extension Array where Element == JSONValue {
    /// The `id`s of rows, in order.
    var ids: [String] { compactMap { $0["id"]?.stringValue } }
}
