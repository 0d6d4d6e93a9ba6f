import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TableProtocol
import TodoSync

/// Performs one request at a time with URLSession and waits for it, so responses leave in order.
///
/// Delegate-based rather than completion handlers: on Linux, tasks with a completion handler
/// follow redirects without asking the delegate, and redirects must never be followed (the app
/// key must not reach another host; protocol §10.4). The 3xx comes back as the response.
final class SessionClient: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let origin: String
    private var session: URLSession!
    /// Guards the fields below, which the delegate queue fills while `perform` waits.
    private let lock = NSLock()
    private var body = Data()
    private var completionError: Error?
    private let finished = DispatchSemaphore(value: 0)

    /// Headers that are the connection's business, not the request's or response's: URLSession
    /// owns framing and connections, and our serializer writes its own `Content-Length`.
    private static let hopByHop: Set<String> = [
        "host", "content-length", "transfer-encoding", "connection", "keep-alive", "te", "trailer", "upgrade",
        "proxy-connection",
    ]

    init(_ invocation: RemoteHelperProtocol.Invocation) {
        origin = "\(invocation.endpoint.scheme.rawValue)://\(invocation.endpoint.hostHeader)"
        let configuration = URLSessionConfiguration.ephemeral
        // One timer per request on Linux, started before connecting, in whole seconds (it truncates).
        let seconds = (invocation.timeouts.connect + invocation.timeouts.request).rounded(.up)
        configuration.timeoutIntervalForRequest = seconds
        configuration.timeoutIntervalForResource = seconds
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        super.init()
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    func perform(_ request: HTTPRequest) -> HTTPResponse {
        guard let url = URL(string: origin + request.target) else {
            let reason = "'\(request.target)' is not a valid request target"
            return RemoteHelperProtocol.response(for: .connectionLost(reason: reason, requestSent: false))
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method
        for header in request.headers where !Self.hopByHop.contains(header.name.lowercased()) {
            urlRequest.addValue(header.value, forHTTPHeaderField: header.name)
        }
        if !request.body.isEmpty { urlRequest.httpBody = Data(request.body) }
        lock.withLock {
            body = Data()
            completionError = nil
        }
        let task = session.dataTask(with: urlRequest)
        task.resume()
        finished.wait()
        if let error = lock.withLock({ completionError }) {
            return RemoteHelperProtocol.response(for: Self.failure(for: error))
        }
        guard let response = task.response as? HTTPURLResponse else {
            return RemoteHelperProtocol.response(for: .badResponse(reason: "URLSession returned no HTTP response"))
        }
        var headers = HTTPHeaders()
        for (name, value) in response.allHeaderFields {
            guard let name = name as? String, let value = value as? String else { continue }
            let lower = name.lowercased()
            // The body arrives decoded, so its encoding no longer applies.
            if Self.hopByHop.contains(lower) || lower == "content-encoding" { continue }
            if lower == RemoteHelperProtocol.failureHeader.lowercased() { continue }
            headers.add(name: name, value: value)
        }
        let bytes = lock.withLock { [UInt8](body) }
        return HTTPResponse(status: response.statusCode, headers: headers, body: bytes)
    }

    // MARK: - URLSessionDataDelegate

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.withLock { body.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        lock.withLock { completionError = error }
        finished.signal()
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    // MARK: - Errors

    /// URLSession's error as a transport failure. On Linux, libcurl's TLS errors arrive as
    /// `.unknown` with curl's message as the description, so that text decides them; anything
    /// not known to have failed before sending counts as possibly sent.
    static func failure(for error: Error) -> TransportFailure {
        let reason = error.localizedDescription
        guard let code = (error as? URLError)?.code else { return .connectionLost(reason: reason, requestSent: true) }
        switch code {
        case .cannotFindHost, .dnsLookupFailed:
            return .cannotResolve(host: "", reason: reason)
        case .cannotConnectToHost, .notConnectedToInternet:
            return .cannotConnect(endpoint: "", reason: reason)
        case .timedOut:
            return .timedOut(seconds: 0, requestSent: true)
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
             .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
             .clientCertificateRequired:
            return .tlsFailed(reason: reason)
        case .badServerResponse where reason.contains("Empty reply"):
            return .connectionLost(reason: "the server closed the connection without answering", requestSent: true)
        case .badServerResponse, .cannotParseResponse, .cannotDecodeContentData, .cannotDecodeRawData:
            return .badResponse(reason: reason)
        default:
            if reason.hasPrefix("Failed to connect to") { return .cannotConnect(endpoint: "", reason: reason) }
            if reason.hasPrefix("Could not resolve host") { return .cannotResolve(host: "", reason: reason) }
            let handshake = ["SSL certificate problem", "SSL_connect", "SSL: ", "certificate", "handshake", "wrong version number"]
            if !reason.contains("SSL_read") && !reason.contains("SSL_write"), handshake.contains(where: reason.contains) {
                return .tlsFailed(reason: reason)
            }
            return .connectionLost(reason: reason, requestSent: true)
        }
    }
}
