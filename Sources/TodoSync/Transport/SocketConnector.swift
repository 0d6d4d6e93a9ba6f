#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TodoBasics

/// Opens TCP connections: resolve with getaddrinfo, then a non-blocking connect to each address
/// in turn (so `localhost` falls back from ::1 to 127.0.0.1), all within the connect timeout.
///
/// The result is a non-blocking, close-on-exec socket with TCP_NODELAY (a request is one write
/// and must leave at once, not wait for Nagle to pair it with an ACK).
enum SocketConnector {
    static func connect(to endpoint: RemoteEndpoint, timeout: Double) -> Result<Int32, TransportFailure> {
        let addresses: UnsafeMutablePointer<addrinfo>
        switch StreamConnect.resolve(host: endpoint.host, port: endpoint.port) {
        case .addresses(let list): addresses = list
        case .failed(let reason): return .failure(.cannotResolve(host: endpoint.host, reason: reason))
        }
        defer { freeaddrinfo(addresses) }
        switch StreamConnect.first(of: addresses, until: Deadline(secondsFromNow: timeout)) {
        case .connected(let fd):
            DescriptorIO.suppressSIGPIPE(fd)
            return .success(fd)
        case .timedOut:
            return .failure(.cannotConnect(endpoint: endpoint.authority, reason: "no connection within \(secondsText(timeout))"))
        case .failed(let reason):
            return .failure(.cannotConnect(endpoint: endpoint.authority, reason: reason))
        }
    }
}
