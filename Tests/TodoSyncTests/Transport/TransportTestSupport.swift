#if canImport(Glibc)
import Glibc
#endif
import TableProtocol
import TodoBasics
import TodoServer
import TodoSync
import TodoTestSupport

/// The real table server (storage in a temp folder, the service, the socket loop) on
/// 127.0.0.1:0, in this process.
final class LiveTableServer: Sendable {
    let directory = TempDirectory("todo-sync-transport")
    let server: HTTPServer
    let port: Int

    init() throws {
        let storage = try TableStorage(directory: directory.sub("data"))
        let service = try TableService(configuration: ServiceConfiguration(), storage: storage)
        server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0),
                            respond: { service.respond(to: $0) },
                            errorResponse: { service.errorResponse(status: $0, message: $1) },
                            log: { _ in })
        port = try server.start()
    }

    deinit {
        server.stop()
        directory.remove()
    }

    var endpoint: RemoteEndpoint { RemoteEndpoint(scheme: .http, host: "127.0.0.1", port: port) }
}

/// Requests as the sync engines will send them (G2).
enum Requests {
    static func insert(_ json: String, table: String = "todoitem") -> HTTPRequest {
        HTTPRequest(method: "POST", target: "/tables/\(table)",
                    headers: ["ZUMO-API-VERSION": "2.0.0", "Content-Type": "application/json"], body: Array(json.utf8))
    }

    static func get(_ target: String) -> HTTPRequest {
        HTTPRequest(method: "GET", target: target, headers: ["ZUMO-API-VERSION": "2.0.0"])
    }
}

extension HTTPResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
}

extension Result where Success == HTTPResponse, Failure == TransportFailure {
    /// The response, or nil (the failure is then recorded by the caller's #expect).
    var response: HTTPResponse? { try? get() }
    var failure: TransportFailure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}

/// The built helper (`swift build` puts it next to the other products).
enum HelperBinary {
    static var path: String {
        Fixtures.root.parentPath.appendingPath(".build/debug/todo-remote-https")
    }
}

/// Runs `body` on `count` plain threads at once and waits for all of them.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let threads = (0..<count).map { index in TestThread { body(index) } }
    for thread in threads { thread.join() }
}

/// Seconds `body` took.
func timed<T>(_ body: () -> T) -> (T, Double) {
    let start = ContinuousClock.now
    let value = body()
    let elapsed = start.duration(to: .now)
    let (seconds, attoseconds) = elapsed.components
    return (value, Double(seconds) + Double(attoseconds) / 1e18)
}
