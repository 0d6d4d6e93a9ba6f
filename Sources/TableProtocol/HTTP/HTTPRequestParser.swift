/// What the request parser has to say, in the order things happen on the connection.
public enum HTTPParseEvent: Sendable, Equatable {
    /// A complete request. `keepAlive` says whether the connection may serve another one after it.
    case request(HTTPRequest, keepAlive: Bool)
    /// The client waits for `HTTP/1.1 100 Continue` before sending the body it declared.
    case expectContinue
    /// The input is not acceptable HTTP. Answer with `status`, then close: the parser is dead.
    case error(status: Int, message: String)
}

/// Incremental HTTP/1.1 request parser: bytes in, requests out, no I/O.
///
/// Feed it whatever a read returned, then call `next()` until it returns nil. Pipelined requests come
/// out one by one; bytes past a complete request wait for the next call. Every position it keeps is
/// "how far did I get", so input arriving in tiny pieces is never scanned twice.
///
/// Framing follows RFC 9112 §6: `Transfer-Encoding: chunked` or `Content-Length`, otherwise no body.
/// Bodies of every method are read, so a GET with a body does not desynchronize the connection.
public struct HTTPRequestParser: Sendable {
    public let limits: HTTPLimits

    private enum State {
        case requestLine
        case headers
        case fixedBody(remaining: Int)
        case chunkedBody
        case failed
    }

    private var state = State.requestLine
    private var buffer = HTTPInputBuffer()
    private var requestLine = HTTPRequestLineScanner()
    private var lines = HTTPLineReader()
    private var chunked = HTTPChunkedDecoder()

    // The request being assembled.
    private var method = ""
    private var target = ""
    private var version = HTTPVersion.http1_1
    private var headers = HTTPHeaders()
    /// The last request's fields, whose strings the next request's equal fields reuse.
    private var previousHeaders = HTTPHeaders()
    /// The last request's method and target, reused likewise.
    private var previousLine: HTTPRequestLineScanner.Line?
    private var facts = HTTPFramingFacts()
    private var headerBytes = 0
    private var lineNumber = 1
    private var body: [UInt8] = []

    public init(limits: HTTPLimits = .requestDefaults) {
        self.limits = limits
    }

    /// Buffers `bytes`. Nothing is parsed until `next()`. Ignored once the parser has failed.
    public mutating func feed(_ bytes: some Collection<UInt8>) {
        if case .failed = state { return }
        bytes.withHTTPContiguousBytes { buffer.append($0) }
    }

    /// The next event, or nil when more input is needed (or after an error).
    public mutating func next() -> HTTPParseEvent? {
        do throws(HTTPParseFailure) {
            return try step()
        } catch {
            state = .failed
            buffer.release()
            return .error(status: error.status, message: error.message)
        }
    }

    /// True when part of a request has arrived but not all of it: the server then applies the
    /// "complete request within 30 s" timeout instead of the idle keep-alive one. Call after `next()`
    /// has returned nil, so that already complete requests have been taken out.
    public var isRequestInProgress: Bool {
        switch state {
        case .failed: false
        case .requestLine: requestLine.hasStarted || buffer.readableCount > 0
        default: true
        }
    }

    /// True while a request has started but its header section is not complete: the server gives
    /// this phase a shorter deadline than the whole request (slow-header clients, issue 17).
    /// Call after `next()` has returned nil, like `isRequestInProgress`.
    public var isReceivingHead: Bool {
        switch state {
        case .requestLine: requestLine.hasStarted || buffer.readableCount > 0
        case .headers: true
        default: false
        }
    }

    /// True after an `.error` event.
    public var hasFailed: Bool {
        if case .failed = state { return true }
        return false
    }

    /// Bytes buffered and not yet consumed; a server can stop reading while this is large.
    public var bufferedByteCount: Int { buffer.readableCount }

    // MARK: - Steps

    private mutating func step() throws(HTTPParseFailure) -> HTTPParseEvent? {
        while true {
            switch state {
            case .failed:
                return nil
            case .requestLine:
                guard let line = try requestLine.scan(&buffer, limits: limits, previous: previousLine) else { return nil }
                method = line.method
                target = line.target
                version = line.version
                state = .headers
            case .headers:
                switch lines.next(in: buffer) {
                case .partial(let length):
                    try checkHeaderSize(headerBytes + length)
                    return nil
                case .line(let content, let length):
                    headerBytes += length
                    try checkHeaderSize(headerBytes)
                    lineNumber += 1
                    if content.isEmpty {
                        buffer.consume(length)
                        if let event = try headComplete() { return event }
                    } else {
                        try HTTPFieldLineParser.parse(
                            buffer.slice(content), lineNumber: lineNumber, what: "header",
                            into: &headers, facts: &facts, previous: previousHeaders)
                        buffer.consume(length)
                    }
                }
            case .fixedBody(let remaining):
                let available = min(remaining, buffer.readableCount)
                if available > 0 {
                    body.append(contentsOf: buffer.slice(0..<available))
                    buffer.consume(available)
                }
                guard available == remaining else {
                    state = .fixedBody(remaining: remaining - available)
                    return nil
                }
                return complete()
            case .chunkedBody:
                let outcome = try chunked.decode(&buffer, into: &body, limits: limits)
                guard case .done = outcome else { return nil }
                return complete()
            }
        }
    }

    private func checkHeaderSize(_ bytes: Int) throws(HTTPParseFailure) {
        if bytes > limits.maxHeaderBytes {
            throw HTTPParseFailure(
                status: 431, message: "header section exceeds the limit of \(limits.maxHeaderBytes) bytes")
        }
    }

    /// Decides the framing once the head is complete. Returns an event to hand out now, if any.
    private mutating func headComplete() throws(HTTPParseFailure) -> HTTPParseEvent? {
        if facts.hasTransferEncoding {
            if facts.contentLength != nil {
                // A classic request-smuggling vector (RFC 9112 §6.3 point 3): refuse rather than guess.
                throw .malformed("both Content-Length and Transfer-Encoding are present")
            }
            if version == .http1_0 {
                throw .malformed("Transfer-Encoding is not allowed in an HTTP/1.0 request")
            }
            guard facts.isChunkedOnly else {
                let codings = facts.transferCodings.joined(separator: ", ")
                throw .malformed("unsupported Transfer-Encoding '\(codings)': only 'chunked' is accepted")
            }
            state = .chunkedBody
            chunked = HTTPChunkedDecoder()
        } else if let length = facts.contentLength, length > 0 {
            guard length <= limits.maxBodyBytes else {
                let declared = length == Int.max ? "a Content-Length" : "Content-Length \(length)"
                throw HTTPParseFailure(
                    status: 413, message: "\(declared) exceeds the body limit of \(limits.maxBodyBytes) bytes")
            }
            state = .fixedBody(remaining: length)
            body.reserveCapacity(length)
        } else {
            return complete()
        }
        // RFC 9110 §10.1.1: HTTP/1.0 clients cannot expect 100-continue; only ask when a body will follow.
        return facts.expectContinue && version == .http1_1 ? .expectContinue : nil
    }

    private mutating func complete() -> HTTPParseEvent {
        let request = HTTPRequest(method: method, target: target, version: version, headers: headers, body: body)
        let keepAlive = HTTPSyntax.keepAlive(
            version: version, close: facts.connectionClose, keepAlive: facts.connectionKeepAlive)
        previousHeaders = request.headers
        previousLine = HTTPRequestLineScanner.Line(method: method, target: target, version: version)
        method = ""
        target = ""
        headers = HTTPHeaders()
        headers.reserveCapacity(request.headers.count)  // pipelined requests tend to carry the same fields
        facts = HTTPFramingFacts()
        headerBytes = 0
        lineNumber = 1
        body = []
        state = .requestLine
        return .request(request, keepAlive: keepAlive)
    }
}
