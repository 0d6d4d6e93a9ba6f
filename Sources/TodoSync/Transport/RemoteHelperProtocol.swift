import TableProtocol

/// How `HelperTransport` and the `todo-remote-https` helper talk; the one place that defines it.
///
/// - Start: `todo-remote-https <base URL> --connect-timeout <seconds> --request-timeout <seconds>
///   [--ca-file <path>]`, with stdin and stdout connected to the transport. `--ca-file`: the PEM file
///   of the certificate authorities to trust instead of the system's (`todo remote set --ca-file`).
/// - Requests: HTTP/1.1 as `HTTPSerializer` writes them (`Host` from the base URL, the target is the
///   path and query as sent, `Content-Length` framing), one at a time. The helper performs each and
///   writes exactly one HTTP/1.1 response back, in order, then waits for the next. It exits at EOF.
/// - Failures: a request that got no response from the server is answered with status 599 and
///   `X-Todo-Transport-Failure: <kind>; request-sent=<yes|no>`, the reason as the UTF-8 body.
///   Kinds: `cannot-resolve`, `cannot-connect`, `tls-failed`, `timed-out`, `connection-lost`,
///   `bad-response`. The transport fills in host, endpoint and seconds from its own settings.
/// - The helper removes that header from real responses, so no server can fake a failure.
public enum RemoteHelperProtocol {
    public static let helperName = "todo-remote-https"
    public static let failureStatus = 599
    public static let failureHeader = "X-Todo-Transport-Failure"

    /// What the helper is started with.
    public struct Invocation: Sendable, Equatable {
        public var endpoint: RemoteEndpoint
        public var timeouts: TransportTimeouts
        /// The CA file to trust instead of the system's store, or nil for the system's.
        public var caFile: String?

        public init(endpoint: RemoteEndpoint, timeouts: TransportTimeouts, caFile: String? = nil) {
            self.endpoint = endpoint
            self.timeouts = timeouts
            self.caFile = caFile
        }

        /// The command-line arguments after the program name.
        public var arguments: [String] {
            [endpoint.displayURL, "--connect-timeout", "\(timeouts.connect)", "--request-timeout", "\(timeouts.request)"]
                + (caFile.map { ["--ca-file", $0] } ?? [])
        }

        /// What is wrong with the helper's arguments; its `main` words it.
        public enum ArgumentError: Error, Sendable, Equatable {
            /// Not `URL [--connect-timeout SECONDS] [--request-timeout SECONDS] [--ca-file PATH]`.
            case usage
            case url(RemoteEndpoint.ParseError)
        }

        /// Parses `arguments` (without the program name).
        public init(arguments: [String]) throws(ArgumentError) {
            guard let url = arguments.first, !url.hasPrefix("-") else { throw .usage }
            do { endpoint = try RemoteEndpoint(parsing: url) } catch { throw .url(error) }
            timeouts = TransportTimeouts()
            caFile = nil
            var rest = arguments.dropFirst()
            while let option = rest.popFirst() {
                if option == "--ca-file" {
                    guard let path = rest.popFirst(), !path.isEmpty else { throw .usage }
                    caFile = path
                    continue
                }
                guard let text = rest.popFirst(), let seconds = Double(text), seconds > 0, seconds.isFinite else {
                    throw .usage
                }
                switch option {
                case "--connect-timeout": timeouts.connect = seconds
                case "--request-timeout": timeouts.request = seconds
                default: throw .usage
                }
            }
        }
    }

    // MARK: - Failures as responses

    /// The 599 response that carries `failure` back to the transport.
    public static func response(for failure: TransportFailure) -> HTTPResponse {
        let (kind, reason): (String, String) = switch failure {
        case .cannotResolve(_, let reason): ("cannot-resolve", reason)
        case .cannotConnect(_, let reason): ("cannot-connect", reason)
        case .tlsFailed(let reason): ("tls-failed", reason)
        case .timedOut: ("timed-out", "")
        case .connectionLost(let reason, _): ("connection-lost", reason)
        case .badResponse(let reason): ("bad-response", reason)
        // Only `todo` starts helpers; a helper never reports this one.
        case .helperUnavailable: ("cannot-connect", "")
        // Found by `TableClient` in a real answer the helper passed on; a helper never reports it.
        case .unreadableRequest(let status, let message): ("connection-lost", "\(status): \(message ?? "")")
        }
        let sent = failure.mayHaveReachedServer ? "yes" : "no"
        return HTTPResponse(
            status: failureStatus, reason: "Transport Failure",
            headers: [failureHeader: "\(kind); request-sent=\(sent)", "Content-Type": "text/plain; charset=utf-8"],
            body: Array(reason.utf8))
    }

    /// The failure a helper response reports, or nil for a real response.
    public static func failure(in response: HTTPResponse, endpoint: RemoteEndpoint, timeouts: TransportTimeouts) -> TransportFailure? {
        guard response.status == failureStatus, let value = response.headers[failureHeader] else { return nil }
        let parts = value.split(separator: ";").map { $0.trimmingCharacters(in: " ") }
        let kind = parts.first ?? ""
        let sent = !parts.contains("request-sent=no")
        let reason = String(decoding: response.body, as: UTF8.self)
        switch kind {
        case "cannot-resolve": return .cannotResolve(host: endpoint.host, reason: reason)
        case "cannot-connect": return .cannotConnect(endpoint: endpoint.authority, reason: reason)
        case "tls-failed": return .tlsFailed(reason: reason)
        case "timed-out": return .timedOut(seconds: timeouts.request, requestSent: sent)
        case "connection-lost": return .connectionLost(reason: reason, requestSent: sent)
        case "bad-response": return .badResponse(reason: reason)
        default: return .badResponse(reason: "\(helperName) reported an unknown failure '\(value)'")
        }
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        var text = self
        while text.first == set { text.removeFirst() }
        while text.last == set { text.removeLast() }
        return String(text)
    }
}
