#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import TableProtocol

/// A fault-injecting TCP proxy on 127.0.0.1:0 in front of a real table server (issue 5, item 3).
///
/// It understands HTTP/1.1 framing (the shared parsers), so it can act per request: each request
/// read from a client connection is passed to the `FaultPlan`, then forwarded untouched, or
/// faulted as `FaultKind` says. Each client connection gets its own upstream connection and its
/// own thread, so a held request never blocks the others. Every fault is counted by kind.
final class FaultProxy: Sendable {
    let port: Int
    let upstreamPort: Int
    /// How long the delay faults hold a request or its answer: past the client's timeout.
    let delay: Double
    private let listener: Int32
    private let acceptThread: TestThread
    private let shared: Shared

    /// Counters, for the campaign's report.
    struct Counts: Sendable {
        var connections = 0
        var requests = 0
        var forwarded = 0
        var faults: [FaultKind: Int] = [:]
        var totalFaults: Int { faults.values.reduce(0, +) }
    }

    /// State shared with the proxy's threads.
    final class Shared: Sendable {
        let plan = Mutex(FaultPlan.clean)
        let counts = Mutex(Counts())
        /// Requests being handled right now (read, not yet answered or faulted).
        let busy = Atomic<Int>(0)
        /// Each closed once, by its connection's thread (see `ProxyClients` for why not by number).
        let clients = ProxyClients()
        let threads = Mutex<[TestThread]>([])
        let stopped = Atomic<Bool>(false)
    }

    init(upstreamPort: Int, delay: Double = 0.8) {
        self.upstreamPort = upstreamPort
        self.delay = delay
        let shared = Shared()
        self.shared = shared
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var on: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        port = bindLoopback(listener)
        listen(listener, 64)
        let listener = self.listener
        acceptThread = TestThread {
            while true {
                let fd = accept(listener, nil, nil)
                if fd < 0 {
                    if errno == EINTR || errno == ECONNABORTED { continue }
                    return  // stop() shut the listener down
                }
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                shared.counts.withLock { $0.connections += 1 }
                let client = shared.clients.register(fd)
                let thread = TestThread {
                    var connection = ProxiedConnection(client: client, upstreamPort: upstreamPort, delay: delay, shared: shared)
                    connection.run()
                }
                shared.threads.withLock { $0.append(thread) }
            }
        }
    }

    deinit {
        stop()
    }

    var url: String { "http://127.0.0.1:\(port)" }

    /// Replaces the plan (e.g. `.clean` to stop faulting).
    func setPlan(_ plan: FaultPlan) { shared.plan.withLock { $0 = plan } }

    /// True while the current plan may still fault something.
    var isFaulting: Bool { shared.plan.withLock { $0.isActive } }

    var counts: Counts { shared.counts.withLock { $0 } }

    /// Waits (up to `limit` seconds) until no request is being handled, so a delayed request has
    /// landed (or been refused) before the test looks at the server.
    func quiesce(limit: Double = 5) {
        var waited = 0.0
        while shared.busy.load(ordering: .acquiring) > 0 && waited < limit {
            usleep(10_000)
            waited += 0.01
        }
    }

    /// Stops accepting, cuts the client connections still open and waits for their threads.
    func stop() {
        if shared.stopped.exchange(true, ordering: .acquiringAndReleasing) { return }
        shutdown(listener, Int32(SHUT_RDWR))
        acceptThread.join()
        close(listener)
        shared.clients.shutdownAll()
        for thread in shared.threads.withLock({ $0 }) { thread.join() }
    }
}

/// One client connection and its upstream connection, on the connection's own thread.
private struct ProxiedConnection {
    let owned: ProxyClients.Client
    var client: Int32 { owned.fd }
    let upstreamPort: Int
    let delay: Double
    let shared: FaultProxy.Shared
    var upstream: Int32 = -1
    var parser = HTTPRequestParser()

    init(client: ProxyClients.Client, upstreamPort: Int, delay: Double, shared: FaultProxy.Shared) {
        self.owned = client
        self.upstreamPort = upstreamPort
        self.delay = delay
        self.shared = shared
        // A test that goes wrong must not leave this thread blocked for ever.
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(client.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    mutating func run() {
        defer { closeBoth(reset: false) }
        while let request = nextRequest() {
            shared.busy.add(1, ordering: .releasing)
            defer { shared.busy.subtract(1, ordering: .releasing) }
            let fault = shared.plan.withLock { $0.decide(request) }
            shared.counts.withLock { counts in
                counts.requests += 1
                if let fault { counts.faults[fault, default: 0] += 1 }
            }
            guard handle(request, fault) else { return }
        }
    }

    /// Handles one request; false when the client connection is finished.
    private mutating func handle(_ request: HTTPRequest, _ fault: FaultKind?) -> Bool {
        switch fault {
        case .dropBeforeForward:
            closeBoth(reset: false)
            return false
        case .answer500, .answer503:
            let status = fault == .answer500 ? 500 : 503
            let body = Array(#"{"error":"injected by the fault proxy"}"#.utf8)
            let response = HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
            return sendAll(client, HTTPSerializer.serialize(response))
        case .delayRequest:
            sleepSeconds(delay)
        default:
            break
        }
        let bytes = HTTPSerializer.serialize(request)
        guard let (response, keepAlive) = forward(fault == .damageRequest ? Self.outOfFrame(bytes) : bytes, method: request.method) else {
            closeBoth(reset: true)
            return false
        }
        shared.counts.withLock { $0.forwarded += 1 }
        if !keepAlive { closeUpstream() }
        let answer = HTTPSerializer.serialize(response)
        switch fault {
        case .dropAfterForward:
            closeBoth(reset: true)
            return false
        case .cutResponse:
            let cut = shared.plan.withLock { $0.cutPoint(answer.count) }
            _ = sendAll(client, Array(answer[0..<cut]))
            closeBoth(reset: false)
            return false
        case .delayAnswer:
            sleepSeconds(delay)
            _ = sendAll(client, answer)  // the client has most likely given up and closed
            closeBoth(reset: false)
            return false
        default:
            return sendAll(client, answer) && request.keepAlive
        }
    }

    /// The next complete request from the client, or nil (closed, timed out, or not HTTP).
    private mutating func nextRequest() -> HTTPRequest? {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            switch parser.next() {
            case .request(let request, _):
                return request
            case .expectContinue:
                guard sendAll(client, HTTPSerializer.continueResponse) else { return nil }
                continue
            case .error:
                return nil
            case nil:
                break
            }
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            parser.feed(buffer[0..<count])
        }
    }

    /// A request's bytes without everything up to and including the first `/` of its target:
    /// what a server reads when the start of a request was lost on the way.
    private static func outOfFrame(_ bytes: [UInt8]) -> [UInt8] {
        guard let slash = bytes.firstIndex(of: UInt8(ascii: "/")) else { return bytes }
        return Array(bytes[(slash + 1)...])
    }

    /// Sends a request's `bytes` upstream (opening the connection if needed) and reads the whole answer.
    private mutating func forward(_ bytes: [UInt8], method: String) -> (HTTPResponse, Bool)? {
        if upstream < 0 { upstream = connectLoopback(upstreamPort) }
        guard upstream >= 0, sendAll(upstream, bytes) else { return nil }
        var reader = HTTPResponseParser(requestMethod: method)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            switch reader.next() {
            case .response(let response, let keepAlive): return (response, keepAlive)
            case .error: return nil
            case nil: break
            }
            let count = buffer.withUnsafeMutableBytes { recv(upstream, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 {
                reader.finish()
                if case .response(let response, _) = reader.next() { return (response, false) }
                return nil
            }
            reader.feed(buffer[0..<count])
        }
    }

    private mutating func closeUpstream() {
        if upstream >= 0 { close(upstream) }
        upstream = -1
    }

    /// Closes both sides; `reset` sends the client an RST instead of a FIN. Idempotent.
    private mutating func closeBoth(reset: Bool) {
        closeUpstream()
        shared.clients.close(owned, reset: reset)
    }
}

/// Writes all of `bytes`; false when the peer is gone.
private func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
        let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if sent < 0 && errno == EINTR { continue }
        if sent <= 0 { return false }
        offset += sent
    }
    return true
}

/// A blocking connection to 127.0.0.1:`port`, or -1.
private func connectLoopback(_ port: Int) -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    if result != 0 {
        close(fd)
        return -1
    }
    return fd
}

private func sleepSeconds(_ seconds: Double) {
    usleep(UInt32(seconds * 1_000_000))
}
