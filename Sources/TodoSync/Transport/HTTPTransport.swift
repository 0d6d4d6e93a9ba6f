import TableProtocol

/// Carries whole HTTP requests to the remote and whole responses back.
///
/// The sync engines speak only this seam: the real transports (sockets for http, the
/// `todo-remote-https` helper for https) and the tests' scripted servers all fit behind it.
/// `send` may be called from several threads at once; each call uses its own connection,
/// and finished connections are kept for reuse (keep-alive).
public protocol HTTPTransport: Sendable {
    /// Sends `request` (its `target` is the path and query as sent, e.g. `/api/tables/todoitem?$top=1`;
    /// the transport adds `Host` and `Content-Length`) and returns the whole response, or why
    /// there is none.
    func send(_ request: HTTPRequest) -> Result<HTTPResponse, TransportFailure>
    /// Sends `requests` on one connection, each written without waiting for the answer to the one
    /// before (HTTP/1.1 pipelining), and returns one result per request, in order. Callers must
    /// not rely on the server seeing them in that order relative to other connections, nor on a
    /// failed request's successors having been refused: each result stands alone.
    func sendPipelined(_ requests: [HTTPRequest]) -> [Result<HTTPResponse, TransportFailure>]
    /// Whether `sendPipelined` really pipelines; if not, a push opens more connections instead.
    var pipelines: Bool { get }
    /// Closes pooled connections (and helper processes). Later sends open new ones.
    func close()
}

extension HTTPTransport {
    /// One request after the other: for transports that cannot pipeline (the https helper, test doubles).
    public func sendPipelined(_ requests: [HTTPRequest]) -> [Result<HTTPResponse, TransportFailure>] {
        requests.map { send($0) }
    }

    public var pipelines: Bool { false }
}

/// Why a request got no response. `mayHaveReachedServer` tells the push whether the write
/// could have landed (sync.md §3.5.4): only failures that prove nothing was sent clear the
/// in-flight marker.
public enum TransportFailure: Error, Sendable, Equatable {
    /// The host name did not resolve. Nothing was sent.
    case cannotResolve(host: String, reason: String)
    /// The connection could not be opened (refused, unreachable, connect timeout). Nothing was sent.
    case cannotConnect(endpoint: String, reason: String)
    /// TLS failed before the request was written. Nothing was sent.
    case tlsFailed(reason: String)
    /// No complete response within the request timeout.
    case timedOut(seconds: Double, requestSent: Bool)
    /// The connection closed or reset before a complete response arrived.
    case connectionLost(reason: String, requestSent: Bool)
    /// The bytes that came back are not an HTTP/1.x response.
    case badResponse(reason: String)
    /// The https helper (`todo-remote-https`) could not be found or started. Nothing was sent.
    case helperUnavailable(endpoint: String, HelperLaunchFailure)
    /// The server could not read the bytes it got as an HTTP request (`UnreadableRequest`): they
    /// were damaged on the way. Its answer (`status`, `message`) is about those bytes, not about
    /// the request we wrote, so it is a failure of the connection rather than a refusal.
    case unreadableRequest(status: Int, message: String?)

    public var mayHaveReachedServer: Bool {
        switch self {
        case .cannotResolve, .cannotConnect, .tlsFailed, .helperUnavailable: false
        case .timedOut(_, let sent), .connectionLost(_, let sent): sent
        // Bytes out of frame may have carried an earlier part of the request that the server did read.
        case .badResponse, .unreadableRequest: true
        }
    }
}

/// Why the https helper cannot be used; `TodoCLI` words it (with what to do about it).
public enum HelperLaunchFailure: Error, Sendable, Equatable {
    /// Not at `TODO_REMOTE_HELPER`, beside the running program, nor on `PATH`.
    case notFound
    /// Found at `path`, but it could not be started (the system's reason).
    case cannotStart(path: String, reason: String)
    /// It ended before taking the request; `how`: "exit status 1", "signal 9".
    case endedBeforeTheRequest(String)
}

/// Connect and whole-request timeouts (protocol §10.6), in seconds.
public struct TransportTimeouts: Sendable, Equatable {
    public var connect: Double
    public var request: Double

    public init(connect: Double = 10, request: Double = 30) {
        self.connect = connect
        self.request = request
    }
}
