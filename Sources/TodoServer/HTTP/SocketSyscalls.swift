#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TodoBasics

/// A failed socket-level call: which call, and the errno it left.
public struct HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The system call (or step) that failed, e.g. `bind`.
    public var operation: String
    /// errno, or 0 when the failure is not a system error (e.g. a bad address).
    public var code: Int32
    public var reason: String

    public init(operation: String, code: Int32, reason: String) {
        self.operation = operation
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(operation): \(reason)" }
}

/// Every socket-related system call the server makes, each wrapped exactly once.
///
/// Why one place: EINTR retry and error naming are easy to forget at a call site, and a signal
/// (SIGTERM arrives while threads sit in `poll`) must never turn into a spurious failure.
/// The wrappers are thin: same arguments, -1 becomes a thrown `HTTPServerError` naming the call.
enum SocketSyscalls {
    /// Runs `body`, retrying on EINTR; -1 becomes an error naming `operation`.
    @inline(__always)
    private static func run<T: BinaryInteger>(_ operation: String, _ body: () -> T) throws(HTTPServerError) -> T {
        while true {
            let result = body()
            if result != -1 { return result }
            let code = errno
            if code == EINTR { continue }
            throw HTTPServerError(operation: operation, code: code, reason: errnoText(code))
        }
    }

    static func tcpSocket() throws(HTTPServerError) -> Int32 {
        #if os(Linux)
        try run("socket") { socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        #else
        try run("socket") { socket(AF_INET, SOCK_STREAM, 0) }
        #endif
    }

    static func setOption(_ fd: Int32, level: Int32, name: Int32, value: Int32, _ what: String) throws(HTTPServerError) {
        var value = value
        _ = try run("setsockopt(\(what))") {
            setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    static func setNonBlocking(_ fd: Int32) throws(HTTPServerError) {
        let flags = try run("fcntl(F_GETFL)") { fcntl(fd, F_GETFL) }
        _ = try run("fcntl(F_SETFL)") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }

    /// A send that blocks longer than `duration` without progress fails with EAGAIN.
    static func setSendTimeout(_ fd: Int32, _ duration: Duration) throws(HTTPServerError) {
        let (seconds, attoseconds) = duration.components
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        if value.tv_sec == 0 && value.tv_usec == 0 { value.tv_usec = 1 }  // 0 would mean "never time out"
        _ = try run("setsockopt(SO_SNDTIMEO)") {
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        }
    }

    static func bindSocket(_ fd: Int32, _ address: sockaddr_in) throws(HTTPServerError) {
        var address = address
        _ = try run("bind") {
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    static func startListening(_ fd: Int32, backlog: Int32) throws(HTTPServerError) {
        _ = try run("listen") { listen(fd, backlog) }
    }

    /// The port the kernel gave a socket bound to port 0.
    static func localPort(_ fd: Int32) throws(HTTPServerError) -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = try run("getsockname") {
            withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A new blocking, close-on-exec connection socket and its peer's IPv4 address (host byte
    /// order). (Glibc's module does not export the GNU `accept4`, so close-on-exec is set right
    /// after; the server never forks, so there is no race.)
    static func acceptConnection(_ fd: Int32) throws(HTTPServerError) -> (fd: Int32, address: UInt32) {
        var peer = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let connection = try run("accept") {
            withUnsafeMutablePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(fd, $0, &length) }
            }
        }
        setCloseOnExec(connection)
        return (connection, UInt32(bigEndian: peer.sin_addr.s_addr))
    }

    /// Best effort: only matters if someone forks, and failing here is no reason to drop a client.
    static func setCloseOnExec(_ fd: Int32) {
        _ = try? run("fcntl(F_SETFD)") { fcntl(fd, F_SETFD, FD_CLOEXEC) }
    }

    static func receiveBytes(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(HTTPServerError) -> Int {
        try run("recv") { recv(fd, buffer.baseAddress, buffer.count, 0) }
    }

    /// `MSG_NOSIGNAL`: a peer that went away yields EPIPE here rather than killing the process.
    static func sendBytes(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, dontWait: Bool = false) throws(HTTPServerError) -> Int {
        #if os(Linux)
        let flags = Int32(MSG_NOSIGNAL) | (dontWait ? Int32(MSG_DONTWAIT) : 0)
        #else
        let flags = dontWait ? MSG_DONTWAIT : 0
        #endif
        return try run("send") { send(fd, bytes.baseAddress, bytes.count, flags) }
    }

    /// Waits for events on `fds`; `timeoutMilliseconds` -1 waits forever. Retried on EINTR with the
    /// same timeout, which can only make a wait longer by the time spent in a signal handler.
    static func waitForEvents(_ fds: inout [pollfd], timeoutMilliseconds: Int32) throws(HTTPServerError) -> Int32 {
        try fds.withUnsafeMutableBufferPointer { buffer throws(HTTPServerError) in
            try run("poll") { poll(buffer.baseAddress, nfds_t(buffer.count), timeoutMilliseconds) }
        }
    }

    static func shutdownWrite(_ fd: Int32) throws(HTTPServerError) {
        _ = try run("shutdown") { shutdown(fd, Int32(SHUT_WR)) }
    }

    /// Ends both directions of a connection another thread is serving: its `poll` wakes and its
    /// `recv` returns 0. Best effort (the peer may have gone already).
    static func shutdownBoth(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Not retried on EINTR: on Linux the descriptor is released even then, and a retry could close
    /// a descriptor another thread has just been given.
    static func closeDescriptor(_ fd: Int32) {
        _ = close(fd)
    }

    /// A close-on-exec, non-blocking pipe (`pipe2` is not exported either): (read end, write end).
    static func makePipe() throws(HTTPServerError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        _ = try run("pipe") { pipe(&ends) }
        for fd in ends {
            setCloseOnExec(fd)
            try setNonBlocking(fd)
        }
        return (ends[0], ends[1])
    }

    static func writeByte(_ fd: Int32) throws(HTTPServerError) {
        var byte: UInt8 = 1
        _ = try run("write") { write(fd, &byte, 1) }
    }

    static func readByte(_ fd: Int32) throws(HTTPServerError) -> Bool {
        var byte: UInt8 = 0
        return try run("read") { read(fd, &byte, 1) } == 1
    }
}
