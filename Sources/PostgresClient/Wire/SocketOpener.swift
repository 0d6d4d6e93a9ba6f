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
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if os(Linux)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, String(port), &hints, &list)
        guard code == 0, let list else {
            let reason = code == EAI_SYSTEM ? errnoText(errno) : String(cString: gai_strerror(code))
            return .failure(.cannotConnect("cannot resolve host \"\(host)\": \(reason)"))
        }
        defer { freeaddrinfo(list) }
        var lastReason = "no address to connect to"
        var next: UnsafeMutablePointer<addrinfo>? = list
        while let address = next {
            next = address.pointee.ai_next
            switch attempt(address.pointee.ai_family, address.pointee.ai_addr, address.pointee.ai_addrlen, deadline) {
            case .success(let socket):
                var on: Int32 = 1
                setsockopt(socket.descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
                return .success(socket)
            case .failure(.timedOut):
                return .failure(.cannotConnect("no connection to \(host):\(port) within \(deadline.text) (connect timeout)"))
            case .failure(.closed(let reason)):
                lastReason = reason
            }
        }
        return .failure(.cannotConnect("\(host):\(port): \(lastReason). Is the server running on that host "
                                       + "and accepting TCP/IP connections on that port?"))
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
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { attempt(AF_UNIX, UnsafeMutablePointer(mutating: $0), length, deadline) }
        }
        switch result {
        case .success(let socket): return .success(socket)
        case .failure(.timedOut):
            return .failure(.cannotConnect("no connection on unix socket \(path) within \(deadline.text) (connect timeout)"))
        case .failure(.closed(let reason)):
            return .failure(.cannotConnect("unix socket \(path): \(reason). Is the server running locally "
                                           + "and accepting connections on that socket?"))
        }
    }

    /// A non-blocking connect, waited for with poll until the deadline.
    private static func attempt(_ family: Int32, _ address: UnsafeMutablePointer<sockaddr>!, _ length: socklen_t,
                                _ deadline: Deadline) -> Result<WireSocket, WireFailure> {
        #if os(Linux)
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
        let type = SOCK_STREAM
        #endif
        let fd = socket(family, type, 0)
        guard fd >= 0 else { return .failure(.closed(errnoText(errno))) }
        let socket = WireSocket(descriptor: fd)
        #if !os(Linux)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        let result = systemConnect(fd, address, length)
        // EINTR: the connect goes on in the background, exactly as with EINPROGRESS.
        if result != 0 && errno != EINPROGRESS && errno != EINTR && errno != EAGAIN {
            return .failure(.closed(errnoText(errno)))
        }
        if result != 0 {
            var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            while true {
                let timeout = deadline.remainingMilliseconds
                let ready = poll(&entry, 1, timeout)
                if ready > 0 { break }
                if ready < 0 && errno != EINTR { return .failure(.closed(errnoText(errno))) }
                if ready == 0 && timeout == 0 { return .failure(.timedOut) }
            }
            var error: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            if getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) != 0 { error = errno }
            if error != 0 { return .failure(.closed(errnoText(error))) }
        }
        return .success(socket)
    }
}

/// `connect` the system call (the name is taken by the client's own `connect`).
@inline(__always)
private func systemConnect(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>!, _ length: socklen_t) -> Int32 {
    #if canImport(Glibc)
    Glibc.connect(fd, address, length)
    #else
    Darwin.connect(fd, address, length)
    #endif
}
