import TableProtocol

/// Where the server listens, how patient it is (`spec/protocol.md` §3.3), and how many connections
/// it holds (issue 17: see `ConnectionTable` for who gives up a slot when a new connection needs it).
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
    /// Once the first byte of a request has arrived, its head (request line and header fields) must
    /// arrive within this; otherwise 408, then close. A new connection must send its first byte
    /// within this too (or the idle timeout, if shorter), else it is closed without a response.
    /// Why shorter than the request: a real client sends its head in one packet, while a client
    /// that trickles it (slowloris) holds a thread for nothing.
    public var headerTimeout: Duration = .seconds(10)
    /// A keep-alive connection with no request in progress is closed, without a response, after this.
    /// (Sooner when a new connection needs its slot: see `ConnectionTable`.)
    public var idleTimeout: Duration = .seconds(60)
    /// At most this many connections at once.
    public var maxConnections: Int = 1024
    /// At most this many connections at once from one peer address.
    public var maxConnectionsPerAddress: Int = 64
    /// A connection that has been idle, or receiving its request head, for longer than this gives
    /// its slot to a new connection when the server (or its address) is full (`ConnectionTable`).
    public var yieldAfter: Duration = .seconds(1)
    /// Peers (IPv4, host byte order) whose `X-Forwarded-For` names the client in the request log:
    /// the reverse proxies in front of the server (`--trusted-proxy`; see `ClientAddress`).
    public var trustedProxies: [UInt32] = []
    /// Every connection starts with a PROXY protocol header (`--proxy-protocol`), whose source
    /// is the client in the request log (`ProxyProtocolHeader`); one without is refused with 400.
    public var proxyProtocol = false

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
    /// The answer to a request, with what must be durable before it is sent (`HTTPAnswer`).
    let answer: @Sendable (HTTPRequest) -> HTTPAnswer
    let errorResponse: @Sendable (_ status: Int, _ message: String) -> HTTPResponse
    /// Nil: no log lines, and none are built.
    let log: (@Sendable (String) -> Void)?
}
