/// A TLS failure's text (OpenSSL's, from `TLSStream` or as the https helper passes libcurl's on)
/// as one sentence naming the cause and the fix (issue 19 item 4). Unknown texts are kept as they are.
enum TLSTrouble {
    static func sentence(_ reason: String) -> String {
        let text = reason.lowercased()
        let has = { (words: [String]) in words.contains { text.contains($0) } }
        if has(["subject name", "does not match", "hostname mismatch", "host name mismatch", "ip address mismatch"]) {
            return "the server's TLS certificate is for another host name: use the name it was made for in the remote URL"
        }
        if has(["expired", "not yet valid"]) {
            return "the server's TLS certificate is out of its validity dates: the server needs a new certificate"
        }
        if has(["self-signed", "self signed", "unable to get local issuer", "unknown ca", "certificate verify failed", "untrusted", "certificate problem"]) {
            let detail = reason.split(separator: ":").last.map { String($0).trimmingSpaces } ?? reason
            return "the server's TLS certificate is not trusted (\(detail)): give the CA that signed it with "
                + "'todo remote set --ca-file PATH' (or add it to the system's certificate store)"
        }
        if has(["error setting certificate file", "cacert", "ca cert", "cannot load the ca file"]) {
            return "the CA file cannot be used (\(reason)): set a PEM file with 'todo remote set --ca-file PATH'"
        }
        if has(["wrong version number", "packet length too long", "unknown protocol", "record layer failure", "http request"]) {
            return "the server does not speak TLS on this port: check the port, or use an http:// URL"
        }
        return "TLS handshake failed: \(reason)"
    }
}
