#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Synchronization
import TableProtocol

/// HTTP/1.1 over POSIX sockets, around a pure responder function.
///
/// Concurrency model: one accept thread, plus one plain thread per connection with blocking
/// sockets and `poll`-based deadlines (see `HTTPConnectionHandler`). Why: the responder is
/// synchronous and may block on storage (fsync), each connection answers its requests in order
/// anyway, and it is fast enough with a fraction of an event loop's code: on 2 cores, `wrk -t2 -c32`
/// measured about 70,000 small GETs/s (p99 under 2 ms), also with 500 idle connections open.
/// An idle connection costs a thread with a mostly untouched stack; `maxConnections` bounds them,
/// `maxConnectionsPerAddress` bounds one peer's share, and idle or slow-header connections give
/// their slot to new ones when the server is full (`ConnectionTable`, issue 17).
///
/// Life cycle: `start()` once, `stop()` once or more; a stopped server does not start again.
/// A running server is kept alive by its threads, so drop it only after `stop()`.
public final class HTTPServer: Sendable {
    private let configuration: HTTPServerConfiguration
    private let application: HTTPApplication
    private let state = Mutex(State())
    /// The open connections, and who gives up a slot for a new one.
    let connections: ConnectionTable
    /// Entered for the accept thread and for every connection thread; `stop()` waits on it.
    private let threads = DispatchGroup()

    private struct State {
        enum Phase {
            case created
            case running(StopSignal)
            case stopping
            case stopped
        }
        var phase = Phase.created
    }

    /// `answer` is the whole application: a pure function, called concurrently from many threads.
    /// Its answers carry a `DurabilityTicket`: the answers to pipelined requests are sent together,
    /// once their tickets are settled with one wait per table log (see `HTTPConnectionHandler`).
    /// `errorResponse` builds the answer for errors found before the application runs (malformed
    /// HTTP, limits, timeouts, too many connections), so the app can use its own JSON error shape.
    /// `log` gets one line per request: client, method, path, status, time in ms (`127.0.0.1 GET /tables/x 200 0.4ms`);
    /// nil when nobody reads them (building them cost a few percent of a small request).
    public init(
        configuration: HTTPServerConfiguration,
        answer: @escaping @Sendable (HTTPRequest) -> HTTPAnswer,
        errorResponse: @escaping @Sendable (_ status: Int, _ message: String) -> HTTPResponse,
        log: (@Sendable (String) -> Void)?
    ) {
        self.configuration = configuration
        self.application = HTTPApplication(answer: answer, errorResponse: errorResponse, log: log)
        self.connections = ConnectionTable(maxConnections: configuration.maxConnections,
                                           maxPerAddress: configuration.maxConnectionsPerAddress,
                                           yieldAfter: configuration.yieldAfter)
    }

    /// A server whose responses are durable when `respond` returns them (or need not be): each
    /// waits for itself, so pipelined writes do not share an fsync.
    public convenience init(
        configuration: HTTPServerConfiguration,
        respond: @escaping @Sendable (HTTPRequest) -> HTTPResponse,
        errorResponse: @escaping @Sendable (_ status: Int, _ message: String) -> HTTPResponse,
        log: (@Sendable (String) -> Void)?
    ) {
        self.init(configuration: configuration, answer: { .durable(respond($0)) }, errorResponse: errorResponse, log: log)
    }

    /// Binds, listens and starts serving. Returns the actual port (useful with port 0).
    public func start() throws(HTTPServerError) -> Int {
        try state.withLock { state throws(HTTPServerError) in
            guard case .created = state.phase else {
                throw HTTPServerError(operation: "start", code: 0, reason: "the server was already started")
            }
            let listener = try ListeningSocket(host: configuration.host, port: configuration.port)
            let port = listener.port
            let stop = try StopSignal()
            let box = TransferBox(listener)
            threads.enter()
            do throws(HTTPServerError) {
                try ServerThread.spawn { [self] in
                    acceptLoop(box.take(), stop: stop)
                    threads.leave()
                }
            } catch {
                threads.leave()
                throw error
            }
            state.phase = .running(stop)
            return port
        }
    }

    /// Stops accepting (the port refuses connections once this returns), lets requests in flight
    /// finish and their responses be written, closes idle connections, and returns when every
    /// connection thread has ended. A request that is still arriving gets until its
    /// `requestTimeout`. Safe to call more than once and from several threads.
    public func stop() {
        let signal: StopSignal? = state.withLock { state in
            guard case .running(let signal) = state.phase else { return nil }
            state.phase = .stopping
            return signal
        }
        signal?.fire()
        threads.wait()
        state.withLock { state in
            if case .stopping = state.phase { state.phase = .stopped }
        }
    }

    // MARK: - Accepting

    private func acceptLoop(_ listener: consuming ListeningSocket, stop: StopSignal) {
        var fds = [
            pollfd(fd: listener.fd, events: Int16(POLLIN), revents: 0),
            pollfd(fd: stop.readFD, events: Int16(POLLIN), revents: 0),
        ]
        while !stop.isFired {
            guard (try? SocketSyscalls.waitForEvents(&fds, timeoutMilliseconds: -1)) != nil else { continue }
            if fds[1].revents != 0 { break }
            guard fds[0].revents != 0 else { continue }
            do {
                while let (fd, address) = try listener.accept() { serve(fd, from: address, stop: stop) }
            } catch {
                // Out of descriptors (EMFILE) or memory: pending connections wait in the backlog.
                // Back off instead of spinning on a listener that stays readable.
                usleep(10_000)
            }
        }
        // `listener` ends here, closing the port before stop() can return.
    }

    /// Hands a new connection to its own thread, or answers 503 when it cannot have a slot.
    private func serve(_ fd: Int32, from address: UInt32, stop: StopSignal) {
        let slot: ConnectionSlot
        switch connections.admit(fd: fd, address: address) {
        case .refused(let reason):
            reject(ConnectionSocket(adopting: fd, sendTimeout: configuration.requestTimeout), status: 503, message: reason,
                   peer: address)
            return
        case .admitted(let admitted):
            slot = admitted
        }
        let socket = ConnectionSocket(adopting: fd, sendTimeout: configuration.requestTimeout, slot: slot)
        let box = TransferBox(socket)
        threads.enter()
        do {
            try ServerThread.spawn { [self] in
                HTTPConnectionHandler(
                    socket: box.take(), configuration: configuration, application: application, stop: stop, peer: address
                ).run()
                threads.leave()
            }
        } catch {
            threads.leave()
            if let socket = box.takeIfPresent() {
                reject(socket, status: 503, message: "cannot start a thread for the connection", peer: address)
            }
        }
    }

    /// A best-effort error answer from the accept thread, which must never block on one client.
    private func reject(_ socket: consuming ConnectionSocket, status: Int, message: String, peer: UInt32) {
        var response = application.errorResponse(status, message)
        response.headers.set(name: "Connection", value: "close")
        response.headers.set(name: "Retry-After", value: "1")
        socket.writeWithoutWaiting(HTTPSerializer.serialize(response))
        application.log?(HTTPRequestLog.line(client: ClientAddress.text(peer), method: nil, target: nil, status: status, elapsed: .zero))
    }
}
