import TableProtocol

/// Where the server listens and how patient it is (`spec/protocol.md` §3.3).
public struct HTTPServerConfiguration: Sendable {
    /// An IPv4 literal (`127.0.0.1`, `0.0.0.0`) or `localhost`.
    public var host: String = "127.0.0.1"
    /// 0 lets the kernel pick a free port; `HTTPServer.start()` returns the one it got.
    public var port: Int = 0
    /// Request target, header section and body limits, enforced by the parser (414, 431, 413).
    public var limits: HTTPLimits = .requestDefaults
    /// Once the first byte of a request has arrived, the whole request must arrive within this;
    /// otherwise 408, then close. Also bounds a send that makes no progress, and the lingering close.
    public var requestTimeout: Duration = .seconds(30)
    /// A keep-alive connection with no request in progress is closed, without a response, after this.
    public var idleTimeout: Duration = .seconds(60)
    /// Connections beyond this are answered 503 and closed at once.
    public var maxConnections: Int = 1024

    public init(
        host: String = "127.0.0.1", port: Int = 0, limits: HTTPLimits = .requestDefaults,
        requestTimeout: Duration = .seconds(30), idleTimeout: Duration = .seconds(60), maxConnections: Int = 1024
    ) {
        self.host = host
        self.port = port
        self.limits = limits
        self.requestTimeout = requestTimeout
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
    }

    /// How long a closing connection keeps draining input so that its last response is not lost to
    /// an RST (see `ConnectionSocket.closeLingering`). Short, so `stop()` is not held up by it.
    var lingerTimeout: Duration { min(requestTimeout, .seconds(2)) }
}

/// The three functions the socket layer calls; together they are the whole application.
struct HTTPApplication: Sendable {
    let respond: @Sendable (HTTPRequest) -> HTTPResponse
    let errorResponse: @Sendable (_ status: Int, _ message: String) -> HTTPResponse
    /// Nil: no log lines, and none are built.
    let log: (@Sendable (String) -> Void)?
}
