/// The two protocol versions this codec speaks. Anything else is rejected while parsing.
public enum HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    case http1_0
    case http1_1

    public var description: String {
        switch self {
        case .http1_0: "HTTP/1.0"
        case .http1_1: "HTTP/1.1"
        }
    }
}

/// A complete request: head plus the whole decoded body (chunked bodies arrive already de-chunked).
public struct HTTPRequest: Sendable, Equatable {
    public var method: String
    /// The raw request-target, still percent-encoded. Parse it with `HTTPRequestTarget`.
    public var target: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(
        method: String, target: String, version: HTTPVersion = .http1_1,
        headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []
    ) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
    }

    /// Whether the connection stays open after this request, by the version's default and `Connection`.
    public var keepAlive: Bool {
        HTTPSyntax.keepAlive(
            version: version,
            close: headers.containsToken("close", forName: "Connection"),
            keepAlive: headers.containsToken("keep-alive", forName: "Connection"))
    }
}

/// A complete response. The serializer owns framing: it writes `Content-Length` itself.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var reason: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    public var body: [UInt8]

    /// `reason` defaults to the standard phrase for `status`.
    public init(
        status: Int, reason: String? = nil, version: HTTPVersion = .http1_1,
        headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []
    ) {
        self.status = status
        self.reason = reason ?? HTTPResponse.standardReason(for: status)
        self.version = version
        self.headers = headers
        self.body = body
    }

    /// Statuses whose responses never have a body (RFC 9110 §6.4.1): 1xx, 204, 304.
    public static func statusForbidsBody(_ status: Int) -> Bool {
        (100...199).contains(status) || status == 204 || status == 304
    }

    /// The RFC 9110 reason phrase, or "" for a code it does not name.
    public static func standardReason(for status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 203: "Non-Authoritative Information"
        case 204: "No Content"
        case 205: "Reset Content"
        case 206: "Partial Content"
        case 300: "Multiple Choices"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 416: "Range Not Satisfiable"
        case 417: "Expectation Failed"
        case 421: "Misdirected Request"
        case 422: "Unprocessable Content"
        case 426: "Upgrade Required"
        case 428: "Precondition Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: ""
        }
    }
}
