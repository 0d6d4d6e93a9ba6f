import TodoBasics

/// Picks the transport for a remote: sockets for http, and for https too, through TLS inside
/// `todo` (the system's OpenSSL, `TLSStream`); the `todo-remote-https` helper only where OpenSSL
/// cannot be loaded.
public enum Transports {
    /// `environment` is read for `TODO_REMOTE_HELPER` (the helper's path), `PATH` (where to look
    /// for it), `TODO_REMOTE_HELPER_FOR_HTTPS=1`, which sends https through the helper even where
    /// OpenSSL loads, and `TODO_REMOTE_HELPER_FOR_HTTP=1`, which sends http through the helper too,
    /// so tests can drive the helper without TLS. `caFile`: the CA file an https remote is trusted
    /// with instead of the system's store (`todo remote set --ca-file`).
    public static func make(
        endpoint: RemoteEndpoint, timeouts: TransportTimeouts, caFile: String? = nil,
        environment: [String: String]
    ) -> any HTTPTransport {
        let https = endpoint.scheme == .https
        if environment["TODO_REMOTE_HELPER_FOR_HTTP"] == "1"
            || (https && (environment["TODO_REMOTE_HELPER_FOR_HTTPS"] == "1" || !SocketTransport.canSpeakTLS)) {
            return HelperTransport(endpoint: endpoint, timeouts: timeouts, caFile: caFile, environment: environment)
        }
        return SocketTransport(endpoint: endpoint, timeouts: timeouts, caFile: caFile)
    }
}
