#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A non-blocking connect of a stream socket with a deadline, shared by the sync transport and the
/// PostgreSQL client: both must give up on a silent host at their own timeout, not the kernel's
/// two minutes, and try each resolved address in turn (`localhost` falls back from ::1 to 127.0.0.1).
public enum StreamConnect {
    public enum Outcome: Sendable, Equatable {
        /// A connected, non-blocking, close-on-exec descriptor; the caller owns it.
        case connected(Int32)
        /// The reason (strerror text); the descriptor was closed.
        case failed(String)
        case timedOut
    }

    /// The result of a host name lookup: the addresses in order, or the reason there are none.
    public enum Lookup {
        case addresses(UnsafeMutablePointer<addrinfo>)
        case failed(String)
    }

    /// `getaddrinfo` for a stream socket to `host:port`; free the list with `freeaddrinfo`.
    public static func resolve(host: String, port: Int) -> Lookup {
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
            return .failed(code == EAI_SYSTEM ? errnoText(errno) : String(cString: gai_strerror(code)))
        }
        return .addresses(list)
    }

    /// Each address of `list` in turn until one connects, the deadline passes, or none is left
    /// (then the last address's reason). TCP sockets get TCP_NODELAY: a request is one write and
    /// must leave at once, not wait for Nagle to pair it with an ACK.
    public static func first(of list: UnsafeMutablePointer<addrinfo>, until deadline: Deadline) -> Outcome {
        var outcome = Outcome.failed("no address to connect to")
        var next: UnsafeMutablePointer<addrinfo>? = list
        while let address = next {
            next = address.pointee.ai_next
            outcome = attempt(family: address.pointee.ai_family, address: address.pointee.ai_addr,
                              length: address.pointee.ai_addrlen, until: deadline)
            switch outcome {
            case .connected(let fd):
                var on: Int32 = 1
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
                return outcome
            case .timedOut: return outcome
            case .failed: continue
            }
        }
        return outcome
    }

    /// One non-blocking connect, waited for with poll until the deadline.
    public static func attempt(family: Int32, address: UnsafeMutablePointer<sockaddr>!, length: socklen_t,
                               until deadline: Deadline) -> Outcome {
        #if os(Linux)
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
        let type = SOCK_STREAM
        #endif
        let fd = socket(family, type, 0)
        guard fd >= 0 else { return .failed(errnoText(errno)) }
        #if !os(Linux)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        let result = systemConnect(fd, address, length)
        // EINTR: the connect goes on in the background, exactly as with EINPROGRESS.
        if result != 0 && errno != EINPROGRESS && errno != EINTR && errno != EAGAIN {
            return closing(fd, .failed(errnoText(errno)))
        }
        if result != 0 {
            var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            while true {
                let timeout = deadline.remainingMilliseconds
                let ready = poll(&entry, 1, timeout)
                if ready > 0 { break }
                if ready < 0 && errno != EINTR { return closing(fd, .failed(errnoText(errno))) }
                if ready == 0 && timeout == 0 { return closing(fd, .timedOut) }
            }
            var error: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            if getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) != 0 { error = errno }
            if error != 0 { return closing(fd, .failed(errnoText(error))) }
        }
        return .connected(fd)
    }

    private static func closing(_ fd: Int32, _ outcome: Outcome) -> Outcome {
        #if canImport(Glibc)
        _ = Glibc.close(fd)
        #else
        _ = Darwin.close(fd)
        #endif
        return outcome
    }
}

/// `connect` the system call (callers' own `connect` methods shadow the name).
@inline(__always)
private func systemConnect(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>!, _ length: socklen_t) -> Int32 {
    #if canImport(Glibc)
    Glibc.connect(fd, address, length)
    #else
    Darwin.connect(fd, address, length)
    #endif
}
