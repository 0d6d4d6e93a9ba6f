#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TodoBasics

/// One TLS connection over a connected non-blocking socket (an OpenSSL `SSL`), as a `ByteStream`:
/// OpenSSL's "want read / want write" become `.blocked` with the poll events to wait for, so the
/// transports keep their deadlines, pool and pipelining unchanged.
///
/// Used by one thread at a time (the pool hands a connection to one request), hence unchecked
/// Sendable. Every OpenSSL call runs with this thread's error queue emptied first (OpenSSL needs
/// that to report the right error) and inside `SIGPIPEShield`.
final class TLSStream: ByteStream, @unchecked Sendable {
    let fd: Int32
    /// Kept so the shared settings outlive every connection made from them.
    private let context: TLSContext
    private let ssl: LibSSL.Handle
    /// A fatal TLS or socket error happened: no close_notify is sent (OpenSSL forbids it then).
    private var broken = false

    private var library: LibSSL { context.library }

    private init(fd: Int32, context: TLSContext, ssl: LibSSL.Handle) {
        self.fd = fd
        self.context = context
        self.ssl = ssl
    }

    /// The TLS handshake on `fd` (connected, non-blocking) with the server named `host`, within
    /// `deadline`. The certificate must verify and be for `host` (a name, with SNI, or an
    /// address). On failure `fd` is closed and nothing of a request has been sent.
    static func handshake(fd: Int32, context: TLSContext, host: String, until deadline: Deadline) -> Result<TLSStream, TransportFailure> {
        let library = context.library
        library.clearErrors()
        guard let ssl = library.new(context.handle) else {
            closeDescriptor(fd)
            return .failure(.tlsFailed(reason: library.takeErrorText() ?? "SSL_new failed"))
        }
        let stream = TLSStream(fd: fd, context: context, ssl: ssl)
        guard library.setFD(ssl, fd) == 1, stream.expectServer(named: host) else {
            let reason = library.takeErrorText() ?? "cannot set up TLS for \(host)"
            stream.fail()
            return .failure(.tlsFailed(reason: reason))
        }
        while true {
            let (result, code, error) = stream.call { library.connect(ssl) }
            if result == 1 { return .success(stream) }
            let events: Int16
            switch error {
            case LibSSL.errorWantRead: events = Int16(POLLIN)
            case LibSSL.errorWantWrite: events = Int16(POLLOUT)
            default:
                let reason = stream.handshakeFailure(error: error, code: code)
                stream.fail()
                return .failure(.tlsFailed(reason: reason))
            }
            if case .timedOut = DescriptorIO.wait(fd, for: events, until: deadline) {
                stream.fail()
                return .failure(.tlsFailed(reason: "no TLS handshake within \(deadline.text)"))
            }
        }
    }

    func send(_ bytes: UnsafeRawBufferPointer) -> StreamStep {
        // A retry after "want write" must offer the same bytes: the length is capped the same way.
        let count = Int32(clamping: min(bytes.count, 1 << 30))
        let (result, code, error) = call { library.write(ssl, bytes.baseAddress, count) }
        if result > 0 { return .bytes(Int(result)) }
        return step(error: error, code: code, sending: true)
    }

    func receive(into buffer: UnsafeMutableRawBufferPointer) -> StreamStep {
        let (result, code, error) = call { library.read(ssl, buffer.baseAddress, Int32(clamping: buffer.count)) }
        if result > 0 { return .bytes(Int(result)) }
        return step(error: error, code: code, sending: false)
    }

    var hasBufferedInput: Bool { library.hasPending(ssl) == 1 }

    /// Quiet even when the socket is readable, if what arrived was only TLS housekeeping (TLS 1.3
    /// session tickets come after the handshake and carry no data).
    func isQuiet() -> Bool {
        if !hasBufferedInput && DescriptorIO.isQuiet(fd) { return true }
        var probe: UInt8 = 0
        if case .blocked = withUnsafeMutableBytes(of: &probe, { receive(into: $0) }) { return true }
        return false
    }

    /// Sends close_notify when the connection is still sound, then frees it and the socket.
    func close() {
        if !broken {
            _ = call { library.shutdown(ssl) }
        }
        library.free(ssl)
        closeDescriptor(fd)
    }

    // MARK: - Steps

    /// `body`'s result, errno right after it, and OpenSSL's verdict on it (`SSL_get_error`).
    private func call(_ body: () -> Int32) -> (result: Int32, code: Int32, error: Int32) {
        SIGPIPEShield.run {
            library.clearErrors()
            errno = 0
            let result = body()
            let code = errno
            return (result, code, result > 0 ? 0 : library.getError(ssl, result))
        }
    }

    private func step(error: Int32, code: Int32, sending: Bool) -> StreamStep {
        switch error {
        case LibSSL.errorWantRead: return .blocked(events: Int16(POLLIN))
        case LibSSL.errorWantWrite: return .blocked(events: Int16(POLLOUT))
        case LibSSL.errorZeroReturn where !sending: return .endOfInput
        case LibSSL.errorSyscall where code == 0 && !sending:
            broken = true
            return .endOfInput
        case LibSSL.errorSyscall, LibSSL.errorZeroReturn:
            broken = true
            library.clearErrors()
            let code = code == 0 ? EPIPE : code
            return .failed(code: code, reason: errnoText(code))
        default:
            broken = true
            return .failed(code: 0, reason: "TLS error: \(library.takeErrorText() ?? "code \(error)")")
        }
    }

    /// Why the handshake failed, in OpenSSL's words: the certificate check's verdict when there
    /// is one ("unable to get local issuer certificate", "hostname mismatch"), else the error.
    private func handshakeFailure(error: Int32, code: Int32) -> String {
        let verdict = library.verifyResult(ssl)
        let queued = library.takeErrorText()
        if verdict != 0 { return library.verifyErrorText(verdict).map { String(cString: $0) } ?? "certificate error \(verdict)" }
        if let queued { return queued }
        if error == LibSSL.errorSyscall && code != 0 { return errnoText(code) }
        return "the server closed the connection during the TLS handshake"
    }

    /// Which certificate is right: one for `host`, told to the server by SNI; or, for an
    /// address (no SNI for those, RFC 6066 §3), one for that address.
    private func expectServer(named host: String) -> Bool {
        if Self.isAddress(host) {
            return library.setVerifyIP(library.verifyParameters(ssl), host) == 1
        }
        guard library.setHost(ssl, host) == 1 else { return false }
        return host.withCString { name in
            library.ctrl(ssl, LibSSL.ctrlSetHostName, 0, UnsafeMutableRawPointer(mutating: name))
        } == 1
    }

    private static func isAddress(_ host: String) -> Bool {
        var address = (UInt64(0), UInt64(0))
        return withUnsafeMutableBytes(of: &address) { raw in
            inet_pton(AF_INET, host, raw.baseAddress) == 1 || inet_pton(AF_INET6, host, raw.baseAddress) == 1
        }
    }

    /// Frees everything after a failed handshake.
    private func fail() {
        broken = true
        close()
    }
}
