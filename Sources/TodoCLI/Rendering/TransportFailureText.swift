import TodoSync

/// Why a request got no answer, as one line for people: the system's or the TLS library's words
/// with what failed, and for TLS the cause and the fix (issue 19 item 4).
enum TransportFailureText {
    static func sentence(_ failure: TransportFailure) -> String {
        switch failure {
        case .cannotResolve(let host, let reason): "cannot resolve host '\(host)': \(reason)"
        case .cannotConnect(let endpoint, let reason): "cannot connect to \(endpoint): \(reason)"
        case .tlsFailed(let reason): tls(TLSTrouble(reason: reason))
        case .timedOut(let seconds, _): "no response within \(seconds == seconds.rounded() ? "\(Int(seconds))" : "\(seconds)") s"
        case .connectionLost(let reason, _): "the connection was lost: \(reason)"
        case .badResponse(let reason): "the server's answer is not valid HTTP: \(reason)"
        case .helperUnavailable(let endpoint, let launch): "cannot connect to \(endpoint): \(helper(launch))"
        case .unreadableRequest(let status, let message):
            "the server could not read the request as HTTP (\(status)\(message.map { ": \($0)" } ?? "")): "
                + "it was damaged on the way (by a proxy or the network), not refused"
        }
    }

    /// What went wrong and what to do: install the helper, or the system's reason it did not start.
    static func helper(_ failure: HelperLaunchFailure) -> String {
        let reason = switch failure {
        case .notFound: "not found next to this program or on PATH; install it beside todo or set TODO_REMOTE_HELPER to its path"
        case .cannotStart(let path, let reason): "\(reason) (\(path))"
        case .endedBeforeTheRequest(let how): "it ended (\(how)) before taking the request"
        }
        return "cannot run \(RemoteHelperProtocol.helperName) (needed for https remotes): \(reason)"
    }

    static func tls(_ trouble: TLSTrouble) -> String {
        switch trouble {
        case .wrongHost:
            "the server's TLS certificate is for another host name: use the name it was made for in the remote URL"
        case .outOfDates:
            "the server's TLS certificate is out of its validity dates: the server needs a new certificate"
        case .untrusted(let detail):
            "the server's TLS certificate is not trusted (\(detail)): give the CA that signed it with "
                + "'todo remote set --ca-file PATH' (or add it to the system's certificate store)"
        case .unusableCAFile(let reason):
            "the CA file cannot be used (\(reason)): set a PEM file with 'todo remote set --ca-file PATH'"
        case .notTLS:
            "the server does not speak TLS on this port: check the port, or use an http:// URL"
        case .other(let reason):
            "TLS handshake failed: \(reason)"
        }
    }
}
