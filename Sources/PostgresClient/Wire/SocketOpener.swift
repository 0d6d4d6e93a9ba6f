#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TodoBasics

/// Opens the socket to a server: TCP through getaddrinfo (each address in turn, so `localhost`
/// falls back from ::1 to 127.0.0.1), or the unix socket `DIR/.s.PGSQL.PORT`, all within the
/// connect deadline. Failures come back as the reason text for `.cannotConnect`.
enum SocketOpener {
    static func open(_ endpoint: PostgresEndpoint, until deadline: Deadline) -> Result<WireSocket, PostgresError> {
        switch endpoint {
        case .tcp(let host, let port): return openTCP(host: host, port: port, deadline: deadline)
        case .unixSocket(let directory, let port): return openUnix(path: "\(directory)/.s.PGSQL.\(port)", deadline: deadline)
        }
    }

    private static func openTCP(host: String, port: Int, deadline: Deadline) -> Result<WireSocket, PostgresError> {
        let list: UnsafeMutablePointer<addrinfo>
        switch StreamConnect.resolve(host: host, port: port) {
        case .addresses(let addresses): list = addresses
        case .failed(let reason): return .failure(.cannotConnect("cannot resolve host \"\(host)\": \(reason)"))
        }
        defer { freeaddrinfo(list) }
        switch StreamConnect.first(of: list, until: deadline) {
        case .connected(let fd):
            return .success(WireSocket(descriptor: fd))
        case .timedOut:
            return .failure(.cannotConnect("no connection to \(host):\(port) within \(deadline.text) (connect timeout)"))
        case .failed(let reason):
            return .failure(.cannotConnect("\(host):\(port): \(reason). Is the server running on that host "
                                           + "and accepting TCP/IP connections on that port?"))
        }
    }

    private static func openUnix(path: String, deadline: Deadline) -> Result<WireSocket, PostgresError> {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard pathBytes.count < capacity else {
            return .failure(.invalidConfiguration("unix socket path \(path) is longer than \(capacity - 1) bytes"))
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in pathBytes.enumerated() { raw[i] = byte }
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                StreamConnect.attempt(family: AF_UNIX, address: UnsafeMutablePointer(mutating: $0), length: length, until: deadline)
            }
        }
        switch result {
        case .connected(let fd): return .success(WireSocket(descriptor: fd))
        case .timedOut:
            return .failure(.cannotConnect("no connection on unix socket \(path) within \(deadline.text) (connect timeout)"))
        case .failed(let reason):
            return .failure(.cannotConnect("unix socket \(path): \(reason). Is the server running locally "
                                           + "and accepting connections on that socket?"))
        }
    }
}
