#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bound, listening TCP socket, IPv4 only.
///
/// Why IPv4 only: the server binds a literal (`127.0.0.1` by default, `0.0.0.0` for all interfaces),
/// so name resolution and dual-stack sockets would be code without a user. `localhost` is accepted
/// and means 127.0.0.1. The descriptor is non-blocking so a connection that vanished between
/// `poll` and `accept` costs an EAGAIN instead of a stuck accept thread.
struct ListeningSocket: ~Copyable {
    let fd: Int32
    let port: Int

    init(host: String, port: Int, backlog: Int32 = 1024) throws(HTTPServerError) {
        let address = try Self.address(host: host, port: port)
        let fd = try SocketSyscalls.tcpSocket()
        do throws(HTTPServerError) {
            // A restarted server must not wait for the old one's TIME_WAIT connections to expire.
            try SocketSyscalls.setOption(fd, level: SOL_SOCKET, name: SO_REUSEADDR, value: 1, "SO_REUSEADDR")
            try SocketSyscalls.bindSocket(fd, address)
            try SocketSyscalls.startListening(fd, backlog: backlog)
            try SocketSyscalls.setNonBlocking(fd)
            self.port = try SocketSyscalls.localPort(fd)
        } catch {
            SocketSyscalls.closeDescriptor(fd)
            throw HTTPServerError(operation: error.operation, code: error.code,
                                  reason: "\(error.reason) (\(host):\(port))")
        }
        self.fd = fd
    }

    deinit {
        SocketSyscalls.closeDescriptor(fd)
    }

    /// The next pending connection and its peer's IPv4 address (host byte order), or nil when
    /// there is none right now or it was aborted. Throws only for failures that concern the
    /// listener itself (e.g. EMFILE).
    func accept() throws(HTTPServerError) -> (fd: Int32, address: UInt32)? {
        do throws(HTTPServerError) {
            return try SocketSyscalls.acceptConnection(fd)
        } catch {
            // Nothing pending, or a connection reset before we took it: not the listener's problem.
            if [EAGAIN, EWOULDBLOCK, ECONNABORTED, EPROTO].contains(error.code) { return nil }
            throw error
        }
    }

    /// `host` as an IPv4 socket address.
    static func address(host: String, port: Int) throws(HTTPServerError) -> sockaddr_in {
        guard (0...65_535).contains(port) else {
            throw HTTPServerError(operation: "bind", code: 0, reason: "port \(port) is out of range 0...65535")
        }
        let literal = host.lowercased() == "localhost" ? "127.0.0.1" : host
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        guard inet_pton(AF_INET, literal, &address.sin_addr) == 1 else {
            throw HTTPServerError(
                operation: "bind", code: 0,
                reason: "host '\(host)' is not an IPv4 address such as 127.0.0.1 or 0.0.0.0")
        }
        return address
    }
}
