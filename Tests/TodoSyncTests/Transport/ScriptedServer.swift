#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization
import TableProtocol

/// A raw TCP server on 127.0.0.1:0 whose every connection runs a script on its own thread, for
/// the misbehaviours a real server does not show on demand (closing, resetting, never answering).
final class ScriptedServer: Sendable {
    let port: Int
    private let listener: Int32
    private let state = Shared()
    private let acceptThread: TestThread

    private struct State {
        var accepted = 0
        var requests = 0
        var threads: [TestThread] = []
        var stopped = false
    }

    /// The state, shared by reference with the accept thread.
    private final class Shared: Sendable {
        let mutex = Mutex(State())
        func withLock<T>(_ body: (inout State) -> T) -> T { mutex.withLock { body(&$0) } }
    }

    /// `script` runs once per accepted connection, with its index (0 for the first).
    init(backlog: Int32 = 64, script: @escaping @Sendable (ScriptedConnection, Int) -> Void) {
        // Close-on-exec, so processes other tests start (shells, helpers) do not hold our sockets open.
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var on: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        port = bindLoopback(listener)
        listen(listener, backlog)
        let listener = self.listener
        let state = self.state
        acceptThread = TestThread {
            while true {
                let fd = accept(listener, nil, nil)
                if fd < 0 {
                    if errno == EINTR { continue }
                    return  // shut down by stop()
                }
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                let index = state.withLock { state in
                    state.accepted += 1
                    return state.accepted - 1
                }
                let connection = ScriptedConnection(fd: fd) { state.withLock { $0.requests += 1 } }
                let thread = TestThread { script(connection, index) }
                state.withLock { $0.threads.append(thread) }
            }
        }
    }

    deinit {
        stop()
    }

    /// Connections accepted so far.
    var accepted: Int { state.withLock { $0.accepted } }
    /// Requests the scripts have read so far.
    var requests: Int { state.withLock { $0.requests } }

    var endpointURL: String { "http://127.0.0.1:\(port)" }

    /// Stops accepting and waits for the scripts to end (they end when their client closes).
    func stop() {
        let alreadyStopped = state.withLock { state in
            defer { state.stopped = true }
            return state.stopped
        }
        if alreadyStopped { return }
        shutdown(listener, Int32(SHUT_RDWR))
        acceptThread.join()
        close(listener)
        for thread in state.withLock({ $0.threads }) { thread.join() }
    }
}

/// One accepted connection, as a script sees it. Reads time out after 5 s, so a test that goes
/// wrong fails instead of hanging.
final class ScriptedConnection: @unchecked Sendable {
    let fd: Int32
    private var parser = HTTPRequestParser()
    private let countRequest: @Sendable () -> Void

    init(fd: Int32, countRequest: @escaping @Sendable () -> Void) {
        self.fd = fd
        self.countRequest = countRequest
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// The next request, or nil when the client closed (or the read timed out).
    func readRequest() -> HTTPRequest? {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            switch parser.next() {
            case .request(let request, _):
                countRequest()
                return request
            case .error:
                return nil
            case .expectContinue, nil:
                break
            }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            parser.feed(buffer[0..<count])
        }
    }

    func write(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return }
            offset += sent
        }
    }

    /// A complete keep-alive response with `body`.
    func respond(_ body: String, status: String = "200 OK", headers: String = "") {
        write("HTTP/1.1 \(status)\r\nContent-Length: \(body.utf8.count)\r\n\(headers)\r\n\(body)")
    }

    /// Answers every request with its method and target until the client closes.
    func echoUntilClosed() {
        while let request = readRequest() { respond("\(request.method) \(request.target)") }
        close()
    }

    /// Waits until the client closes (or 5 s pass).
    func waitForClientClose() {
        while readRequest() != nil {}
    }

    func close() {
        Glibc.close(fd)
    }

    /// Closes with an RST instead of a FIN (SO_LINGER 0).
    func reset() {
        var option = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        Glibc.close(fd)
    }
}

/// Binds `fd` to 127.0.0.1 on a free port and returns the port.
func bindLoopback(_ fd: Int32) -> Int {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// A port nobody listens on: bound once, then closed.
func refusedPort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    return bindLoopback(fd)
}

/// A plain thread (not the test's cooperative pool, which blocking scripts would starve).
final class TestThread: @unchecked Sendable {
    private let thread: pthread_t

    init(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { raw in
            Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, box)
        precondition(result == 0, "pthread_create failed")
        self.thread = thread
    }

    func join() {
        pthread_join(thread, nil)
    }

    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
