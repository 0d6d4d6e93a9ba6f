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
        switch resolve(endpoint) {
        case .success(let list): addresses = list
        case .failure(let failure): return .failure(failure)
        }
        defer { freeaddrinfo(addresses) }
        let deadline = Deadline(secondsFromNow: timeout)
        var lastReason = "no address to connect to"
        var next: UnsafeMutablePointer<addrinfo>? = addresses
        while let address = next {
            next = address.pointee.ai_next
            switch attempt(address.pointee, deadline: deadline) {
            case .connected(let fd):
                return .success(fd)
            case .failed(let reason):
                lastReason = reason
            case .timedOut:
                return .failure(.cannotConnect(endpoint: endpoint.authority,
                                               reason: "no connection within \(secondsText(timeout))"))
            }
        }
        return .failure(.cannotConnect(endpoint: endpoint.authority, reason: lastReason))
    }

    private static func resolve(_ endpoint: RemoteEndpoint) -> Result<UnsafeMutablePointer<addrinfo>, TransportFailure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if os(Linux)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(endpoint.host, String(endpoint.port), &hints, &list)
        guard code == 0, let list else {
            let reason = code == EAI_SYSTEM ? errnoText(errno) : String(cString: gai_strerror(code))
            return .failure(.cannotResolve(host: endpoint.host, reason: reason))
        }
        return .success(list)
    }

    private enum Attempt {
        case connected(Int32)
        case failed(String)
        case timedOut
    }

    private static func attempt(_ address: addrinfo, deadline: Deadline) -> Attempt {
        #if os(Linux)
        let type = address.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
        let type = address.ai_socktype
        #endif
        let fd = socket(address.ai_family, type, address.ai_protocol)
        guard fd >= 0 else { return .failed(errnoText(errno)) }
        #if !os(Linux)
        DescriptorIO.setCloseOnExec(fd)
        DescriptorIO.setNonBlocking(fd)
        #endif
        DescriptorIO.suppressSIGPIPE(fd)
        let result = systemConnect(fd, address.ai_addr, address.ai_addrlen)
        // EINTR: the connect carries on in the background, exactly as with EINPROGRESS.
        if result != 0 && errno != EINPROGRESS && errno != EINTR {
            let reason = errnoText(errno)
            closeDescriptor(fd)
            return .failed(reason)
        }
        if result != 0 {
            if case .timedOut = DescriptorIO.wait(fd, for: Int16(POLLOUT), until: deadline) {
                closeDescriptor(fd)
                return .timedOut
            }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            if getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0 { error = errno }
            if error != 0 {
                closeDescriptor(fd)
                return .failed(errnoText(error))
            }
        }
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        return .connected(fd)
    }
}

/// `connect` is shadowed by `SocketConnector.connect`; this reaches the system call.
@inline(__always)
private func systemConnect(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>!, _ length: socklen_t) -> Int32 {
    #if canImport(Glibc)
    Glibc.connect(fd, address, length)
    #else
    Darwin.connect(fd, address, length)
    #endif
}
