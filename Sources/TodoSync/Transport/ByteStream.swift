#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TodoBasics

/// One connection's bytes, plain or through TLS, moved without ever blocking: the transports
/// wait with `poll` on `fd` for what a step asks, so every wait keeps the exchange's deadline.
///
/// Why a seam: http and https then share one connection pool, one pipelining and one way of
/// telling whether a request may have reached the server (`SocketTransport`).
protocol ByteStream: Sendable {
    /// The socket underneath, for `poll`.
    var fd: Int32 { get }
    /// Sends some of `bytes`.
    func send(_ bytes: UnsafeRawBufferPointer) -> StreamStep
    /// Receives some bytes into `buffer`.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> StreamStep
    /// Input is held inside the stream (decrypted or read ahead), so `poll` would not see it:
    /// receive before waiting. It may be part of a record only: a receive can still block.
    var hasBufferedInput: Bool { get }
    /// An idle connection has nothing to say: no input, no EOF, no error. One that fails this
    /// was closed (or broken) by the peer and must not be reused.
    func isQuiet() -> Bool
    /// Ends the connection and releases the descriptor.
    func close()
}

/// What one `send` or `receive` did.
enum StreamStep: Equatable {
    /// This many bytes moved (never 0).
    case bytes(Int)
    /// The peer ended its side (`receive` only).
    case endOfInput
    /// Nothing moved: wait until `poll` reports one of these events, then call again.
    case blocked(events: Int16)
    /// The connection is broken. `code` is the errno when there is one (EPIPE, ECONNRESET), else 0.
    case failed(code: Int32, reason: String)
}

/// A plain TCP socket (or the socket pair to a helper process).
struct PlainStream: ByteStream {
    let fd: Int32

    func send(_ bytes: UnsafeRawBufferPointer) -> StreamStep {
        while true {
            let sent = systemSend(fd, bytes.baseAddress, bytes.count, DescriptorIO.noSignalFlag)
            if sent > 0 { return .bytes(sent) }
            let code = sent == 0 ? EPIPE : errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return .blocked(events: Int16(POLLOUT)) }
            return .failed(code: code, reason: errnoText(code))
        }
    }

    func receive(into buffer: UnsafeMutableRawBufferPointer) -> StreamStep {
        switch DescriptorIO.readSome(fd, into: buffer) {
        case .bytes(let count): .bytes(count)
        case .endOfInput: .endOfInput
        case .wouldBlock: .blocked(events: Int16(POLLIN))
        case .failed(let code): .failed(code: code, reason: errnoText(code))
        }
    }

    var hasBufferedInput: Bool { false }

    func isQuiet() -> Bool { DescriptorIO.isQuiet(fd) }

    func close() { closeDescriptor(fd) }
}

/// Whole writes and waiting reads on any `ByteStream`, within a deadline.
enum StreamIO {
    enum WriteOutcome: Equatable {
        case written
        /// The deadline passed; `partially` when some bytes had gone out.
        case timedOut(partially: Bool)
        case failed(code: Int32, reason: String)
    }

    static func writeAll(_ stream: some ByteStream, _ bytes: [UInt8], until deadline: Deadline) -> WriteOutcome {
        bytes.withUnsafeBytes { all in
            var offset = 0
            while offset < all.count {
                switch stream.send(UnsafeRawBufferPointer(rebasing: all[offset...])) {
                case .bytes(let count):
                    offset += count
                case .blocked(let events):
                    if case .timedOut = DescriptorIO.wait(stream.fd, for: events, until: deadline) {
                        return .timedOut(partially: offset > 0)
                    }
                case .endOfInput:
                    return .failed(code: EPIPE, reason: errnoText(EPIPE))
                case .failed(let code, let reason):
                    return .failed(code: code, reason: reason)
                }
            }
            return .written
        }
    }

    enum ReadOutcome: Equatable {
        case bytes(Int)
        case endOfInput
        case timedOut
        case failed(code: Int32, reason: String)
    }

    /// Waits for input (unless the stream holds some already), then receives it. After a blocked
    /// receive it always waits: a stream may hold part of a TLS record, which is buffered input
    /// that cannot be read yet, and skipping the wait then would spin.
    static func receive(_ stream: some ByteStream, into buffer: UnsafeMutableRawBufferPointer, until deadline: Deadline) -> ReadOutcome {
        var events = Int16(POLLIN)
        var mustWait = !stream.hasBufferedInput
        while true {
            if mustWait, case .timedOut = DescriptorIO.wait(stream.fd, for: events, until: deadline) {
                return .timedOut
            }
            switch stream.receive(into: buffer) {
            case .bytes(let count): return .bytes(count)
            case .endOfInput: return .endOfInput
            case .blocked(let wanted):
                events = wanted
                mustWait = true
            case .failed(let code, let reason): return .failed(code: code, reason: reason)
            }
        }
    }
}

/// `send` is shadowed inside the streams by their own `send(_:)`; this reaches the system call.
@inline(__always)
private func systemSend(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int, _ flags: Int32) -> Int {
    #if canImport(Glibc)
    Glibc.send(fd, bytes, count, flags)
    #else
    Darwin.send(fd, bytes, count, flags)
    #endif
}
