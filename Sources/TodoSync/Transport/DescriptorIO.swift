#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TodoBasics

/// Non-blocking descriptor I/O with a deadline, for sockets (the http transport) and the
/// socket pair to a helper process. Every call retries EINTR.
enum DescriptorIO {
    enum WaitOutcome: Equatable {
        /// `revents` as poll reported them (may be POLLHUP or POLLERR rather than the asked event).
        case ready(Int16)
        case timedOut
    }

    /// Waits until `fd` reports one of `events` (or an error/hang-up), or the deadline passes.
    static func wait(_ fd: Int32, for events: Int16, until deadline: Deadline) -> WaitOutcome {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        while true {
            let timeout = deadline.remainingMilliseconds
            let ready = poll(&entry, 1, timeout)
            if ready > 0 { return .ready(entry.revents) }
            if ready < 0 && errno != EINTR { return .ready(Int16(POLLERR)) }
            if ready == 0 && timeout == 0 { return .timedOut }
            // Woken early (EINTR, or poll rounding down): wait for the rest.
        }
    }

    /// True when an idle connection has nothing to say: no input, no EOF, no error. A pooled
    /// connection that fails this was closed (or broken) by the peer and must not be reused.
    static func isQuiet(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&entry, 1, 0)
            if ready == 0 { return true }
            if ready > 0 || errno != EINTR { return false }
        }
    }

    enum WriteOutcome: Equatable {
        case written
        /// The deadline passed; `partially` when some bytes had gone out.
        case timedOut(partially: Bool)
        case failed(errno: Int32)
    }

    /// Writes every byte. `send` with MSG_NOSIGNAL, so a peer that went away is EPIPE, never SIGPIPE.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], until deadline: Deadline) -> WriteOutcome {
        bytes.withUnsafeBytes { all in
            var offset = 0
            while offset < all.count {
                let sent = send(fd, all.baseAddress! + offset, all.count - offset, noSignalFlag)
                if sent > 0 {
                    offset += sent
                    continue
                }
                let code = errno
                if sent < 0 && code == EINTR { continue }
                guard sent < 0 && (code == EAGAIN || code == EWOULDBLOCK) else { return .failed(errno: sent == 0 ? EPIPE : code) }
                if case .timedOut = wait(fd, for: Int16(POLLOUT), until: deadline) {
                    return .timedOut(partially: offset > 0)
                }
            }
            return .written
        }
    }

    enum ReadOutcome: Equatable {
        case bytes(Int)
        case endOfInput
        case wouldBlock
        case failed(errno: Int32)
    }

    static func readSome(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> ReadOutcome {
        while true {
            let count = read(fd, buffer.baseAddress, buffer.count)
            if count > 0 { return .bytes(count) }
            if count == 0 { return .endOfInput }
            let code = errno
            if code == EINTR { continue }
            return code == EAGAIN || code == EWOULDBLOCK ? .wouldBlock : .failed(errno: code)
        }
    }

    static func setNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }

    static func setCloseOnExec(_ fd: Int32) {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }

    #if os(Linux)
    static let noSignalFlag = Int32(MSG_NOSIGNAL)
    #else
    static let noSignalFlag: Int32 = 0  // Darwin: SO_NOSIGPIPE is set on each socket instead
    #endif

    /// Darwin has no MSG_NOSIGNAL; the socket option does the same there. No-op on Linux.
    static func suppressSIGPIPE(_ fd: Int32) {
        #if canImport(Darwin)
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }
}

/// `close` is shadowed inside the transports by their own `close()`; this reaches the system call.
/// Not retried on EINTR: Linux releases the descriptor even then.
@inline(__always)
func closeDescriptor(_ fd: Int32) {
    #if canImport(Glibc)
    _ = Glibc.close(fd)
    #else
    _ = Darwin.close(fd)
    #endif
}
