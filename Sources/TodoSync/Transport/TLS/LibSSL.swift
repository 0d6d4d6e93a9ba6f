#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The OpenSSL 3 functions the in-process TLS needs, found at run time with dlopen/dlsym in the
/// system's `libssl.so.3` and `libcrypto.so.3`.
///
/// Why at run time: `todo` links only the Swift runtime and libc (every command starts fast, and
/// the package has no system library target). OpenSSL 3 is on every Linux that has libcurl, which
/// FoundationNetworking (and so `todo-remote-https`) needs anyway. Where it is missing, https
/// falls back to the helper (`Transports.make`). Only functions are used, never macros or struct
/// layouts, and no variadic function: the ABI of these few calls is stable across OpenSSL 3.x.
struct LibSSL: @unchecked Sendable {
    typealias Handle = OpaquePointer

    let clientMethod: @convention(c) () -> Handle?
    let contextNew: @convention(c) (Handle?) -> Handle?
    let contextFree: @convention(c) (Handle?) -> Void
    let contextCtrl: @convention(c) (Handle?, Int32, Int, UnsafeMutableRawPointer?) -> Int
    let contextSetOptions: @convention(c) (Handle?, UInt64) -> UInt64
    let contextSetVerify: @convention(c) (Handle?, Int32, OpaquePointer?) -> Void
    let contextDefaultVerifyPaths: @convention(c) (Handle?) -> Int32
    let contextLoadVerifyLocations: @convention(c) (Handle?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32
    let new: @convention(c) (Handle?) -> Handle?
    let free: @convention(c) (Handle?) -> Void
    let setFD: @convention(c) (Handle?, Int32) -> Int32
    let ctrl: @convention(c) (Handle?, Int32, Int, UnsafeMutableRawPointer?) -> Int
    let setHost: @convention(c) (Handle?, UnsafePointer<CChar>?) -> Int32
    let verifyParameters: @convention(c) (Handle?) -> Handle?
    let setVerifyIP: @convention(c) (Handle?, UnsafePointer<CChar>?) -> Int32
    let connect: @convention(c) (Handle?) -> Int32
    let read: @convention(c) (Handle?, UnsafeMutableRawPointer?, Int32) -> Int32
    let write: @convention(c) (Handle?, UnsafeRawPointer?, Int32) -> Int32
    let getError: @convention(c) (Handle?, Int32) -> Int32
    let hasPending: @convention(c) (Handle?) -> Int32
    let shutdown: @convention(c) (Handle?) -> Int32
    let verifyResult: @convention(c) (Handle?) -> Int
    let verifyErrorText: @convention(c) (Int) -> UnsafePointer<CChar>?
    let nextError: @convention(c) () -> UInt
    let errorReasonText: @convention(c) (UInt) -> UnsafePointer<CChar>?
    let clearErrors: @convention(c) () -> Void

    /// The library, or why it cannot be used; opened once per process.
    static let shared: Result<LibSSL, Missing> = open()

    struct Missing: Error, Equatable {
        var reason: String
    }

    // Constants from OpenSSL 3's public headers (ssl.h, x509_vfy.h).
    static let errorSSL: Int32 = 1, errorWantRead: Int32 = 2, errorWantWrite: Int32 = 3
    static let errorSyscall: Int32 = 5, errorZeroReturn: Int32 = 6
    static let verifyPeer: Int32 = 1
    static let ctrlMode: Int32 = 33, ctrlSetReadAhead: Int32 = 41, ctrlSetHostName: Int32 = 55
    static let ctrlSetMinProtocol: Int32 = 123
    static let modePartialWrite = 0x1, modeMovingWriteBuffer = 0x2, modeAutoRetry = 0x4
    static let tls12 = 0x0303
    static let optionIgnoreUnexpectedEOF: UInt64 = 1 << 7

    private static func open() -> Result<LibSSL, Missing> {
        guard let ssl = dlopen("libssl.so.3", RTLD_NOW), let crypto = dlopen("libcrypto.so.3", RTLD_NOW) else {
            return .failure(Missing(reason: "cannot load OpenSSL 3 (libssl.so.3)"))
        }
        func symbol<T>(_ library: UnsafeMutableRawPointer, _ name: String, as type: T.Type) throws(Missing) -> T {
            guard let found = dlsym(library, name) else { throw Missing(reason: "OpenSSL has no \(name)") }
            return unsafeBitCast(found, to: type)
        }
        do throws(Missing) {
            return .success(LibSSL(
                clientMethod: try symbol(ssl, "TLS_client_method", as: (@convention(c) () -> Handle?).self),
                contextNew: try symbol(ssl, "SSL_CTX_new", as: (@convention(c) (Handle?) -> Handle?).self),
                contextFree: try symbol(ssl, "SSL_CTX_free", as: (@convention(c) (Handle?) -> Void).self),
                contextCtrl: try symbol(ssl, "SSL_CTX_ctrl", as: (@convention(c) (Handle?, Int32, Int, UnsafeMutableRawPointer?) -> Int).self),
                contextSetOptions: try symbol(ssl, "SSL_CTX_set_options", as: (@convention(c) (Handle?, UInt64) -> UInt64).self),
                contextSetVerify: try symbol(ssl, "SSL_CTX_set_verify", as: (@convention(c) (Handle?, Int32, OpaquePointer?) -> Void).self),
                contextDefaultVerifyPaths: try symbol(ssl, "SSL_CTX_set_default_verify_paths", as: (@convention(c) (Handle?) -> Int32).self),
                contextLoadVerifyLocations: try symbol(ssl, "SSL_CTX_load_verify_locations",
                                                       as: (@convention(c) (Handle?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32).self),
                new: try symbol(ssl, "SSL_new", as: (@convention(c) (Handle?) -> Handle?).self),
                free: try symbol(ssl, "SSL_free", as: (@convention(c) (Handle?) -> Void).self),
                setFD: try symbol(ssl, "SSL_set_fd", as: (@convention(c) (Handle?, Int32) -> Int32).self),
                ctrl: try symbol(ssl, "SSL_ctrl", as: (@convention(c) (Handle?, Int32, Int, UnsafeMutableRawPointer?) -> Int).self),
                setHost: try symbol(ssl, "SSL_set1_host", as: (@convention(c) (Handle?, UnsafePointer<CChar>?) -> Int32).self),
                verifyParameters: try symbol(ssl, "SSL_get0_param", as: (@convention(c) (Handle?) -> Handle?).self),
                setVerifyIP: try symbol(crypto, "X509_VERIFY_PARAM_set1_ip_asc", as: (@convention(c) (Handle?, UnsafePointer<CChar>?) -> Int32).self),
                connect: try symbol(ssl, "SSL_connect", as: (@convention(c) (Handle?) -> Int32).self),
                read: try symbol(ssl, "SSL_read", as: (@convention(c) (Handle?, UnsafeMutableRawPointer?, Int32) -> Int32).self),
                write: try symbol(ssl, "SSL_write", as: (@convention(c) (Handle?, UnsafeRawPointer?, Int32) -> Int32).self),
                getError: try symbol(ssl, "SSL_get_error", as: (@convention(c) (Handle?, Int32) -> Int32).self),
                hasPending: try symbol(ssl, "SSL_has_pending", as: (@convention(c) (Handle?) -> Int32).self),
                shutdown: try symbol(ssl, "SSL_shutdown", as: (@convention(c) (Handle?) -> Int32).self),
                verifyResult: try symbol(ssl, "SSL_get_verify_result", as: (@convention(c) (Handle?) -> Int).self),
                verifyErrorText: try symbol(crypto, "X509_verify_cert_error_string", as: (@convention(c) (Int) -> UnsafePointer<CChar>?).self),
                nextError: try symbol(crypto, "ERR_get_error", as: (@convention(c) () -> UInt).self),
                errorReasonText: try symbol(crypto, "ERR_reason_error_string", as: (@convention(c) (UInt) -> UnsafePointer<CChar>?).self),
                clearErrors: try symbol(crypto, "ERR_clear_error", as: (@convention(c) () -> Void).self)))
        } catch {
            return .failure(error)
        }
    }

    /// The oldest error on this thread's OpenSSL error queue, as text ("wrong version number"),
    /// and the queue emptied (OpenSSL needs it empty before the next call on this thread).
    func takeErrorText() -> String? {
        let code = nextError()
        defer { clearErrors() }
        guard code != 0 else { return nil }
        return errorReasonText(code).map { String(cString: $0) } ?? "OpenSSL error \(String(code, radix: 16))"
    }
}
