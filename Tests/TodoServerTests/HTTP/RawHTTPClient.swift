#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TableProtocol

/// A tiny blocking HTTP client on a raw socket, for poking the server byte by byte.
///
/// Every read has a receive timeout (`SO_RCVTIMEO`), so a server bug fails a test instead of
/// hanging it. Responses are framed by the codec's `HTTPResponseParser`.
final class RawHTTPClient {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let fd: Int32
    private var parser = HTTPResponseParser()
    private var isClosed = false

    /// Connects to `port` on 127.0.0.1 from `source`, another loopback address such as 127.0.0.2
    /// (all of 127/8 is loopback on Linux), so that the server sees another peer.
    init(port: Int, receiveTimeout: Duration = .seconds(10), from source: String? = nil) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            inet_pton(AF_INET, source, &local.sin_addr)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                let code = errno
                Glibc.close(fd)
                throw Failure(description: "bind to \(source): errno \(code)")
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            Glibc.close(fd)
            throw Failure(description: "connect to port \(port): errno \(code)")
        }
        let (seconds, attoseconds) = receiveTimeout.components
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        self.fd = fd
    }

    deinit {
        if !isClosed { Glibc.close(fd) }
    }

    /// Whether a TCP connection to `port` on 127.0.0.1 is accepted.
    static func canConnect(port: Int) -> Bool {
        (try? RawHTTPClient(port: port)) != nil
    }

    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "send: errno \(errno)")
            }
            offset += sent
        }
    }

    /// Sends a GET and reads its response.
    func get(_ target: String, headers: String = "") throws -> HTTPResponse {
        try send("GET \(target) HTTP/1.1\r\nHost: t\r\n\(headers)\r\n")
        return try readResponse()
    }

    /// Reads the next complete response (interim 1xx responses are skipped by the parser).
    func readResponse(method: String = "GET") throws -> HTTPResponse {
        parser.requestMethod = method
        while true {
            switch parser.next() {
            case .response(let response, _):
                return response
            case .error(let message):
                throw Failure(description: "bad response: \(message)")
            case nil:
                guard let bytes = try receive() else {
                    parser.finish()
                    if case .response(let response, _) = parser.next() { return response }
                    throw Failure(description: "connection closed before a complete response")
                }
                parser.feed(bytes)
            }
        }
    }

    /// Raw bytes until `marker` has been seen (for `100 Continue`, which the parser skips).
    func readRaw(until marker: String) throws -> String {
        var received: [UInt8] = []
        let needle = Array(marker.utf8)
        while !received.ends(with: needle) {
            guard let byte = try receive(maxBytes: 1)?.first else {
                throw Failure(description: "closed after \(String(decoding: received, as: UTF8.self))")
            }
            received.append(byte)
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Reads until the server closes. Returns the bytes that came before the close, or nil when the
    /// receive timeout passed first (the connection is still open).
    func readUntilClosed() -> [UInt8]? {
        var received: [UInt8] = []
        while true {
            do {
                guard let bytes = try receive() else { return received }
                received += bytes
            } catch {
                return nil
            }
        }
    }

    /// Up to `maxBytes`, or nil at EOF or reset. Throws when the receive timeout passes.
    func receive(maxBytes: Int = 65_536) throws -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: maxBytes)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 { return Array(buffer[..<count]) }
            if count == 0 { return nil }
            switch errno {
            case EINTR: continue
            case ECONNRESET: return nil
            case EAGAIN: throw Failure(description: "receive timed out")
            default: throw Failure(description: "recv: errno \(errno)")
            }
        }
    }

    /// Closes at once; with `reset`, an RST instead of a FIN (SO_LINGER 0).
    func close(reset: Bool = false) {
        guard !isClosed else { return }
        if reset {
            var option = linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        }
        Glibc.close(fd)
        isClosed = true
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}

extension HTTPResponse {
    var bodyText: String { String(decoding: body, as: UTF8.self) }
}
