#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization
import TableProtocol
@testable import TodoServer

/// A started `HTTPServer` on 127.0.0.1, port 0, with a responder for tests and a captured log.
///
/// Routes of the default responder:
/// - `/echo`: 200 with the request body, and `X-Method` / `X-Body-Length` headers;
/// - `/length`: 200 with the body length as text (for large bodies);
/// - `/slow`: signals `slowStarted`, sleeps 300 ms, then 200 `slow done`;
/// - `/big`: 200 with 8 MiB of `x`;
/// - anything else: 200 with `METHOD TARGET`.
final class HTTPServerHarness: Sendable {
    let server: HTTPServer
    let port: Int
    let slowStarted = DispatchSemaphore(value: 0)
    private let logLines = LogLines()

    init(_ configure: (inout HTTPServerConfiguration) -> Void = { _ in }) throws {
        var configuration = HTTPServerConfiguration()
        configure(&configuration)
        let slowStarted = self.slowStarted
        let logLines = self.logLines
        server = HTTPServer(
            configuration: configuration,
            respond: { request in Self.respond(request, slowStarted: slowStarted) },
            errorResponse: { status, message in
                HTTPResponse(status: status, headers: ["Content-Type": "application/json; charset=utf-8"],
                             body: Array("{\"error\":\"\(message)\"}".utf8))
            },
            log: { line in logLines.append(line) })
        port = try server.start()
    }

    var log: [String] { logLines.all }

    /// A new connection; `from` another loopback address (127.0.0.2, ...) to be another peer.
    func client(receiveTimeout: Duration = .seconds(10), from source: String? = nil) throws -> RawHTTPClient {
        try RawHTTPClient(port: port, receiveTimeout: receiveTimeout, from: source)
    }

    private static func respond(_ request: HTTPRequest, slowStarted: DispatchSemaphore) -> HTTPResponse {
        let path = HTTPRequestLog.path(of: request.target)
        switch path {
        case "/echo":
            return HTTPResponse(status: 200, headers: [
                "X-Method": request.method, "X-Body-Length": String(request.body.count),
            ], body: request.body)
        case "/length":
            return HTTPResponse(status: 200, body: Array(String(request.body.count).utf8))
        case "/slow":
            slowStarted.signal()
            usleep(300_000)
            return HTTPResponse(status: 200, body: Array("slow done".utf8))
        case "/big":
            return HTTPResponse(status: 200, body: [UInt8](repeating: UInt8(ascii: "x"), count: 8 << 20))
        default:
            return HTTPResponse(status: 200, body: Array("\(request.method) \(request.target)".utf8))
        }
    }
}

/// Lines the server logged, in order.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// Runs `body(0..<count)` on `count` real threads at once and waits for all of them.
/// (Not the cooperative pool: on two cores it would run two clients at a time.)
func onHTTPTestThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) throws {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        try ServerThread.spawn {
            body(index)
            group.leave()
        }
    }
    group.wait()
}
