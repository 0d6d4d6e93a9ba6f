#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The TLS settings every connection of one remote shares (an OpenSSL `SSL_CTX`): TLS 1.2 or
/// newer, the server's certificate checked against the system's CA store, or instead against the
/// remote's CA file (`todo remote set --ca-file`, as git's `http.sslCAInfo` and the helper's
/// libcurl), the handshake refused when it does not verify.
///
/// Built once per transport; OpenSSL makes connections from it on any thread.
final class TLSContext: @unchecked Sendable {
    let library: LibSSL
    let handle: LibSSL.Handle

    private init(library: LibSSL, handle: LibSSL.Handle) {
        self.library = library
        self.handle = handle
    }

    deinit {
        library.contextFree(handle)
    }

    /// A context trusting `caFile`, or the system's store without one; fails as a TLS failure naming the CA
    /// file when that cannot be loaded (nothing is sent then).
    static func make(caFile: String?) -> Result<TLSContext, TransportFailure> {
        let library: LibSSL
        switch LibSSL.shared {
        case .success(let found): library = found
        case .failure(let missing): return .failure(.tlsFailed(reason: missing.reason))
        }
        library.clearErrors()
        guard let handle = library.contextNew(library.clientMethod()) else {
            return .failure(.tlsFailed(reason: library.takeErrorText() ?? "SSL_CTX_new failed"))
        }
        let context = TLSContext(library: library, handle: handle)
        _ = library.contextCtrl(handle, LibSSL.ctrlSetMinProtocol, LibSSL.tls12, nil)
        // Partial writes: a pipelined batch goes out as far as the socket takes it, and the rest
        // is offered again from a moved offset. Read-ahead: one read takes many records.
        _ = library.contextCtrl(handle, LibSSL.ctrlMode,
                                LibSSL.modePartialWrite | LibSSL.modeMovingWriteBuffer | LibSSL.modeAutoRetry, nil)
        _ = library.contextCtrl(handle, LibSSL.ctrlSetReadAhead, 1, nil)
        // A server that closes without close_notify ends the input like a plain socket would;
        // HTTP framing (Content-Length, chunks) still tells a cut answer from a whole one.
        _ = library.contextSetOptions(handle, LibSSL.optionIgnoreUnexpectedEOF)
        library.contextSetVerify(handle, LibSSL.verifyPeer, nil)
        library.clearErrors()
        guard let caFile else {
            _ = library.contextDefaultVerifyPaths(handle)
            library.clearErrors()
            return .success(context)
        }
        guard library.contextLoadVerifyLocations(handle, caFile, nil) == 1 else {
            let why = library.takeErrorText() ?? "no certificate in it"
            return .failure(.tlsFailed(reason: "cannot load the CA file \(caFile): \(why)"))
        }
        return .success(context)
    }
}
