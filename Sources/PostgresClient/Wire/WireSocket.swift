#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TodoBasics

/// Why a socket operation stopped; the connection turns it into a `PostgresError` that says what
/// it was doing at the time (connecting, or running which query).
enum WireFailure: Error {
    case timedOut
    case closed(String)
}

/// A connected, non-blocking stream socket (TCP or unix) that reads and writes whole buffers
/// within a deadline. Close-on-exec, and never raises SIGPIPE.
final class WireSocket {
    private(set) var descriptor: Int32
    private var input: [UInt8] = []
    private var inputStart = 0

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { close() }

    func close() {
        guard descriptor >= 0 else { return }
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Darwin.close(descriptor)
        #endif
        descriptor = -1
    }

    var isOpen: Bool { descriptor >= 0 }

    func writeAll(_ bytes: [UInt8], until deadline: Deadline) throws(WireFailure) {
        guard isOpen else { throw .closed("the connection is closed") }
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { all in send(descriptor, all.baseAddress! + offset, all.count - offset, noSignal) }
            if sent > 0 { offset += sent; continue }
            let code = errno
            if sent < 0 && code == EINTR { continue }
            guard sent < 0 && (code == EAGAIN || code == EWOULDBLOCK) else {
                throw .closed("writing failed: \(errnoText(sent == 0 ? EPIPE : code))")
            }
            try wait(for: Int16(POLLOUT), until: deadline)
        }
    }

    /// Exactly `count` bytes, reading more from the socket as needed.
    func read(_ count: Int, until deadline: Deadline) throws(WireFailure) -> ArraySlice<UInt8> {
        while input.count - inputStart < count {
            try fill(until: deadline)
        }
        let slice = input[inputStart..<(inputStart + count)]
        inputStart += count
        if inputStart == input.count { input.removeAll(keepingCapacity: true); inputStart = 0 }
        return slice
    }

    /// True when an idle connection has something to say (input, EOF or an error): the server
    /// sent a FATAL message and closed, or the socket broke. Such a connection must not be reused.
    var hasUnexpectedInput: Bool {
        guard isOpen else { return true }
        if inputStart < input.count { return true }
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&entry, 1, 0)
            if ready == 0 { return false }
            if ready > 0 || errno != EINTR { return true }
        }
    }

    private func fill(until deadline: Deadline) throws(WireFailure) {
        guard isOpen else { throw .closed("the connection is closed") }
        if inputStart > 0 && inputStart > input.count / 2 {
            input.removeFirst(inputStart)
            inputStart = 0
        }
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                input.append(contentsOf: chunk[0..<count])
                return
            }
            if count == 0 { throw .closed("the server closed the connection") }
            let code = errno
            if code == EINTR { continue }
            guard code == EAGAIN || code == EWOULDBLOCK else { throw .closed("reading failed: \(errnoText(code))") }
            try wait(for: Int16(POLLIN), until: deadline)
        }
    }

    private func wait(for events: Int16, until deadline: Deadline) throws(WireFailure) {
        var entry = pollfd(fd: descriptor, events: events, revents: 0)
        while true {
            let timeout = deadline.remainingMilliseconds
            let ready = poll(&entry, 1, timeout)
            if ready > 0 { return }  // ready, or POLLHUP/POLLERR: the next call reports which
            if ready < 0 && errno != EINTR { throw .closed("poll failed: \(errnoText(errno))") }
            if ready == 0 && timeout == 0 { throw .timedOut }
        }
    }

    /// The buffer `recv` reads into, made once per connection: zeroing 64 KiB for every read
    /// cost more than the read.
    private var chunk = [UInt8](repeating: 0, count: 65536)

    #if os(Linux)
    private let noSignal = Int32(MSG_NOSIGNAL)
    #else
    private let noSignal: Int32 = 0
    #endif
}
