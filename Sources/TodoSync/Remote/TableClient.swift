import TableProtocol
import TodoModel

#if canImport(Glibc)
import Glibc
#endif

/// Spells table calls for one remote and generation (protocol §10.2–§10.5) and sends them.
///
/// It never retries writes on its own: a retried write needs the replay check first
/// (sync.md §4.4), which only the push knows how to do. Reads retry here (`read`).
public struct TableClient: Sendable {
    public enum Purpose: Sendable { case push, pull }

    public let transport: any HTTPTransport
    public let generation: Generation
    /// The remote URL's path, without a trailing slash ("" for none).
    public let basePath: String
    public let retry: RetryPolicy
    /// Where the calls go, to name it in stops (`foreignAnswer`); nil in tests that need no name.
    public let endpoint: RemoteEndpoint?
    /// Counts the answers' header parses, for tests (nil: not counted).
    public var replyCounter: ReplyCounter?
    private let commonHeaders: [(String, String)]

    public init(transport: any HTTPTransport, generation: Generation, basePath: String, appKey: String?,
                authToken: String? = nil, installationID: String, todoVersion: String, retry: RetryPolicy = RetryPolicy(),
                endpoint: RemoteEndpoint? = nil) {
        self.transport = transport
        self.endpoint = endpoint
        self.generation = generation
        self.basePath = basePath.hasSuffix("/") ? String(basePath.dropLast()) : basePath
        self.retry = retry
        var headers: [(String, String)] = [
            ("Accept", "application/json"),
            ("User-Agent", "todo/\(todoVersion)"),
            ("X-ZUMO-INSTALLATION-ID", installationID),
            ("X-ZUMO-VERSION", Self.zumoVersion(generation: generation, todoVersion: todoVersion)),
        ]
        if generation == .mobileApps { headers.append(("ZUMO-API-VERSION", "2.0.0")) }
        if let appKey, !appKey.isEmpty { headers.append(("X-ZUMO-APPLICATION", appKey)) }
        if let authToken, !authToken.isEmpty { headers.append(("X-ZUMO-AUTH", authToken)) }
        commonHeaders = headers
    }

    /// Sends a call once.
    public func send(_ call: TableCall, purpose: Purpose) -> Result<TableReply, TransportFailure> {
        let request = request(for: call, purpose: purpose)
        return answer(transport.send(request), to: request)
    }

    /// Sends calls once each, pipelined on one connection when the transport can; results in order.
    public func sendPipelined(_ calls: [TableCall], purpose: Purpose) -> [Result<TableReply, TransportFailure>] {
        let requests = calls.map { request(for: $0, purpose: purpose) }
        return zip(transport.sendPipelined(requests), requests).map { answer($0, to: $1) }
    }

    /// The reply to `request`, or the failure it stands for: a server that could not read the
    /// request as HTTP refused bytes damaged on the way, not our request (`UnreadableRequest`).
    func answer(_ result: Result<HTTPResponse, TransportFailure>, to request: HTTPRequest) -> Result<TableReply, TransportFailure> {
        result.flatMap { response in
            let reply = reply(from: response)
            if let failure = UnreadableRequest.failure(in: reply, to: request) { return .failure(failure) }
            return .success(reply)
        }
    }

    /// Sends a read, retrying network failures, 408, 429 and 5xx by the policy. Returns the last
    /// answer: a reply (possibly still an error status) or the last failure.
    public func read(_ call: TableCall, purpose: Purpose) -> Result<TableReply, TransportFailure> {
        var attempt = 1
        while true {
            let result = send(call, purpose: purpose)
            let wait: Double?
            switch result {
            case .success(let reply) where RetryPolicy.isRetryable(status: reply.status) && foreignAnswer(reply) == nil: wait = retry.delay(after: attempt, retryAfter: reply.retryAfter)
            case .success: return result
            case .failure(let failure): wait = retry.delay(after: attempt, failure: failure)
            }
            guard let wait else { return result }
            retry.sleep(wait)
            attempt += 1
        }
    }

    // MARK: Spelling

    /// The HTTP request for a call (public for tests that check the wire form).
    public func request(for call: TableCall, purpose: Purpose) -> HTTPRequest {
        var query: [(String, String)] = []
        let method: String
        var path = basePath + "/tables/" + PercentEncoding.encode(call.table)
        var body: JSONValue? = nil
        var version: String? = nil
        switch call {
        case .insert(_, let b):
            method = "POST"; body = b
        case .update(_, let id, let b, let v):
            method = "PATCH"; path += "/" + PercentEncoding.encode(id); body = b; version = v
        case .delete(_, let id, let v):
            method = "DELETE"; path += "/" + PercentEncoding.encode(id); version = v
        case .undelete(_, let id, let v):
            method = "POST"; path += "/" + PercentEncoding.encode(id); version = v
        case .fetch(_, let id):
            method = "GET"
            query.append(("$filter", "id eq " + ODataLiteral.quoted(id)))
            query.append(("__includeDeleted", "true"))
        case .fetchIgnoringCase(_, let id):
            method = "GET"
            query.append(("$filter", "tolower(id) eq " + ODataLiteral.quoted(id.lowercased())))
            query.append(("__includeDeleted", "true"))
        case .probeTable:
            method = "GET"; query.append(("$top", "1"))
        case .listTables:
            method = "GET"; path = basePath + "/tables"
        case .page(_, let q):
            method = "GET"
            if let filter = q.filter { query.append(("$filter", filter)) }
            query.append(("$orderby", q.orderBy))
            query.append(("$top", String(q.top)))
            if let skip = q.skip { query.append(("$skip", String(skip))) }
            query.append(("__includeDeleted", "true"))
        }
        if generation == .mobileServices {
            query.append(("__systemproperties", "__createdAt,__updatedAt,__version,__deleted"))
        }
        let target = query.isEmpty ? path
            : path + "?" + query.map { "\($0.0)=\(PercentEncoding.encode($0.1))" }.joined(separator: "&")
        var headers = HTTPHeaders(commonHeaders)
        headers.add(name: "X-ZUMO-FEATURES", value: purpose == .push ? "OL" : "OL,IP")
        if let version { headers.add(name: "If-Match", value: WireItem.ifMatch(version)) }
        var bytes: [UInt8] = []
        if let body {
            bytes = body.compactBytes()
            headers.add(name: "Content-Type", value: "application/json")
        }
        return HTTPRequest(method: method, target: target, headers: headers, body: bytes)
    }

    func reply(from response: HTTPResponse) -> TableReply {
        var body: JSONValue? = nil
        if !response.body.isEmpty {
            if let json = try? JSONValue.parse(response.body) {
                body = json
            } else {
                let text = String(decoding: response.body.prefix(300), as: UTF8.self)
                body = .string(text.trimmingSpaces)
            }
        }
        return TableReply(status: response.status, headers: response.headers, body: body, counter: replyCounter)
    }

    static func zumoVersion(generation: Generation, todoVersion: String) -> String {
        var name = utsname()
        uname(&name)
        func text<T>(_ field: T) -> String {
            withUnsafeBytes(of: field) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
        }
        let major = generation == .mobileServices ? "1.0" : "2.0"
        return "ZUMO/\(major) (lang=Swift; os=\(text(name.sysname)); os_version=\(text(name.release)); arch=\(text(name.machine)); version=\(todoVersion))"
    }
}
