/// What a TLS failure's text (OpenSSL's, from `TLSStream`, or libcurl's as the https helper passes
/// it on) says went wrong, so the command line can name the cause and the fix (issue 19 item 4)
/// whichever library wrote it. Unknown texts are kept as they are.
public enum TLSTrouble: Sendable, Equatable {
    /// The certificate is for another host name.
    case wrongHost
    /// The certificate has expired or is not valid yet.
    case outOfDates
    /// No trusted CA signed the certificate; `detail` is the library's last words on it.
    case untrusted(detail: String)
    /// The CA file given cannot be used.
    case unusableCAFile(reason: String)
    /// The server does not speak TLS on this port.
    case notTLS
    /// Anything else, with the library's text.
    case other(reason: String)

    public init(reason: String) {
        let text = reason.lowercased()
        let has = { (words: [String]) in words.contains { text.contains($0) } }
        if has(["subject name", "does not match", "hostname mismatch", "host name mismatch", "ip address mismatch"]) {
            self = .wrongHost
        } else if has(["expired", "not yet valid"]) {
            self = .outOfDates
        } else if has(["self-signed", "self signed", "unable to get local issuer", "unknown ca", "certificate verify failed", "untrusted", "certificate problem"]) {
            self = .untrusted(detail: reason.split(separator: ":").last.map { String($0).trimmingSpaces } ?? reason)
        } else if has(["error setting certificate file", "cacert", "ca cert", "cannot load the ca file"]) {
            self = .unusableCAFile(reason: reason)
        } else if has(["wrong version number", "packet length too long", "unknown protocol", "record layer failure", "http request"]) {
            self = .notTLS
        } else {
            self = .other(reason: reason)
        }
    }
}

extension TransportFailure {
    /// What went wrong with TLS, for a `tlsFailed` failure.
    public var tlsTrouble: TLSTrouble? {
        guard case .tlsFailed(let reason) = self else { return nil }
        return TLSTrouble(reason: reason)
    }
}
