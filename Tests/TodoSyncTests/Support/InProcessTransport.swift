import Synchronization
import TableProtocol
import TodoSync
@testable import TodoServer

/// A transport that hands each request to the table server's request → response core in this
/// process (issue 16 item 2): engines and in-process `todo` runs talk to the real service without
/// a socket, a server thread or a timeout, so a scenario takes milliseconds.
///
/// The request and the answer still travel as the bytes a socket would carry: the client's
/// serializer adds `Host` and `Content-Length`, the server's parser reads them (a bad request gets
/// the server's own 4xx), and the client's response parser reads the answer. So a framing or
/// header mismatch between client and server shows here as it would on the wire. What cannot
/// happen here is what only a socket does: refused connections, timeouts, connections lost
/// midway. Tests of those keep the real socket (`SyncWorld(wire: .socket)`, the Transport and
/// Faults suites).
///
/// `pipelines` is true, as for the socket transport, so a push takes the same path; pipelined
/// requests are answered one after the other, in order, as the server answers them on one
/// connection.
final class InProcessTransport: HTTPTransport {
    typealias Service = @Sendable (HTTPRequest) -> HTTPResponse
    /// Sees every request (as the server parsed it) and may answer it itself, or ask `service`.
    typealias Script = @Sendable (HTTPRequest, _ service: Service) -> HTTPResponse

    /// One request as the server received it, and its answer as the server sent it.
    struct Exchange: Sendable {
        var request: HTTPRequest
        var response: HTTPResponse
    }

    /// The `Host` the client's serializer writes (the remote's `host:port`).
    let host: String
    private let answer: Service
    private let errorResponse: @Sendable (_ status: Int, _ message: String) -> HTTPResponse
    private let limits: HTTPLimits
    private let log = Mutex<[Exchange]>([])

    /// `answer` is the server's core (with whatever layers a test puts over it); `errorResponse`
    /// answers requests the server's parser refuses, as `HTTPServer` does.
    init(host: String, limits: HTTPLimits = HTTPServerConfiguration().limits, answer: @escaping Service,
         errorResponse: @escaping @Sendable (_ status: Int, _ message: String) -> HTTPResponse) {
        self.host = host
        self.limits = limits
        self.answer = answer
        self.errorResponse = errorResponse
    }

    /// The real service, through `script` when one is given.
    convenience init(service: TableService, host: String = "127.0.0.1", script: Script? = nil) {
        let core: Service = { service.respond(to: $0) }
        self.init(host: host, answer: { request in script.map { $0(request, core) } ?? core(request) },
                  errorResponse: { service.errorResponse(status: $0, message: $1) })
    }

    /// Every exchange so far, in the order the answers were made.
    var exchanges: [Exchange] { log.withLock { $0 } }

    func send(_ request: HTTPRequest) -> Result<HTTPResponse, TransportFailure> {
        let response = serve(HTTPSerializer.serialize(request, host: host))
        var parser = HTTPResponseParser(requestMethod: request.method)
        parser.feed(HTTPSerializer.serialize(response))
        switch parser.next() {
        case .response(let parsed, _)?: return .success(parsed)
        case .error(let message)?: return .failure(.badResponse(reason: message))
        case nil: return .failure(.connectionLost(reason: "the answer ended early", requestSent: true))
        }
    }

    func sendPipelined(_ requests: [HTTPRequest]) -> [Result<HTTPResponse, TransportFailure>] {
        requests.map { send($0) }
    }

    var pipelines: Bool { true }

    func close() {}

    /// What the server answers to these request bytes (one request).
    private func serve(_ bytes: [UInt8]) -> HTTPResponse {
        var parser = HTTPRequestParser(limits: limits)
        parser.feed(bytes)
        while let event = parser.next() {
            switch event {
            case .expectContinue:
                continue
            case .error(let status, let message):
                return errorResponse(status, message)
            case .request(let request, _):
                let response = answer(request)
                log.withLock { $0.append(Exchange(request: request, response: response)) }
                return response
            }
        }
        return errorResponse(400, "in-process transport: the request bytes are incomplete")
    }
}

/// A transport that answers from a function, in this process: the engines run without a socket,
/// and every request is counted.
final class ScriptedTransport: HTTPTransport {
    let respond: @Sendable (HTTPRequest) -> Result<HTTPResponse, TransportFailure>
    private let sent = Mutex(0)

    init(_ respond: @escaping @Sendable (HTTPRequest) -> Result<HTTPResponse, TransportFailure>) { self.respond = respond }

    func send(_ request: HTTPRequest) -> Result<HTTPResponse, TransportFailure> {
        sent.withLock { $0 += 1 }
        return respond(request)
    }

    func close() {}
    var requests: Int { sent.withLock { $0 } }
}
