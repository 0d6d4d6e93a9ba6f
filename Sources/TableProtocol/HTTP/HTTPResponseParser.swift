/// What the response parser has to say.
public enum HTTPResponseParseEvent: Sendable, Equatable {
    /// A complete final response. `keepAlive` says whether the connection can carry another request.
    case response(HTTPResponse, keepAlive: Bool)
    /// The peer sent something we cannot use, or closed mid-response. The parser is dead.
    case error(message: String)
}

/// Incremental HTTP/1.1 response parser for our client: bytes in, responses out, no I/O.
///
/// Body rules (RFC 9112 §6.3): responses to HEAD, and 1xx/204/304 responses, have no body; otherwise
/// chunked, `Content-Length`, or everything until the server closes (call `finish()` at EOF).
/// Interim responses (`100 Continue` and other 1xx) are skipped.
public struct HTTPResponseParser: Sendable {
    public let limits: HTTPLimits
    /// Method of the request the next response answers; set it before each request on a reused connection.
    public var requestMethod: String

    private enum State {
        case statusLine
        case headers
        case fixedBody(remaining: Int)
        case chunkedBody
        case untilClose
        case closed
    }

    private var state = State.statusLine
    private var buffer = HTTPInputBuffer()
    private var lines = HTTPLineReader()
    private var chunked = HTTPChunkedDecoder()
    private var endOfInput = false

    private var status = 0
    private var reason = ""
    private var version = HTTPVersion.http1_1
    private var headers = HTTPHeaders()
    private var facts = HTTPFramingFacts()
    private var headerBytes = 0
    private var lineNumber = 1
    private var body: [UInt8] = []

    public init(requestMethod: String = "GET", limits: HTTPLimits = .responseDefaults) {
        self.requestMethod = requestMethod
        self.limits = limits
    }

    /// Buffers `bytes`. Ignored after `finish()` or an error.
    public mutating func feed(_ bytes: some Collection<UInt8>) {
        if endOfInput { return }
        if case .closed = state { return }
        bytes.withHTTPContiguousBytes { buffer.append($0) }
    }

    /// Marks the end of input (the server closed). A close-delimited body then completes; a
    /// response cut short becomes an error on the next `next()`.
    public mutating func finish() {
        endOfInput = true
    }

    /// The next event, or nil when more input is needed. After `finish()`, nil also means the
    /// connection closed cleanly between responses (see `isResponseInProgress`).
    public mutating func next() -> HTTPResponseParseEvent? {
        do throws(HTTPParseFailure) {
            return try step()
        } catch {
            state = .closed
            buffer.release()
            return .error(message: error.message)
        }
    }

    /// True when part of a response has arrived but not all of it.
    public var isResponseInProgress: Bool {
        switch state {
        case .closed: false
        case .statusLine: buffer.readableCount > 0
        default: true
        }
    }

    // MARK: - Steps

    private mutating func step() throws(HTTPParseFailure) -> HTTPResponseParseEvent? {
        while true {
            switch state {
            case .closed:
                return nil
            case .statusLine:
                switch lines.next(in: buffer) {
                case .partial(let length):
                    if length > limits.maxHeaderBytes { throw .malformed("status line is too long") }
                    return try inputEnded()
                case .line(let content, let length):
                    if length > limits.maxHeaderBytes { throw .malformed("status line is too long") }
                    try parseStatusLine(buffer.slice(content))
                    buffer.consume(length)
                    state = .headers
                }
            case .headers:
                switch lines.next(in: buffer) {
                case .partial(let length):
                    try checkHeaderSize(headerBytes + length)
                    return try inputEnded()
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
                            into: &headers, facts: &facts)
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
                    return try inputEnded()
                }
                return complete(keepAliveAllowed: true)
            case .chunkedBody:
                guard case .done = try chunked.decode(&buffer, into: &body, limits: limits) else {
                    return try inputEnded()
                }
                return complete(keepAliveAllowed: true)
            case .untilClose:
                if buffer.readableCount > limits.maxBodyBytes - body.count {
                    throw .malformed("response body exceeds the limit of \(limits.maxBodyBytes) bytes")
                }
                body.append(contentsOf: buffer.slice(0..<buffer.readableCount))
                buffer.consume(buffer.readableCount)
                guard endOfInput else { return nil }
                return complete(keepAliveAllowed: false)
            }
        }
    }

    /// Called when the buffered input is used up: fine while the connection is open, an error
    /// after EOF unless nothing of a response had arrived.
    private mutating func inputEnded() throws(HTTPParseFailure) -> HTTPResponseParseEvent? {
        guard endOfInput else { return nil }
        if case .statusLine = state, buffer.readableCount == 0 {
            state = .closed
            return nil
        }
        throw .malformed("connection closed before the response was complete")
    }

    /// `HTTP/1.x SP 3DIGIT [SP reason-phrase]`; a missing reason (no space) is tolerated.
    private mutating func parseStatusLine(_ line: ArraySlice<UInt8>) throws(HTTPParseFailure) {
        // Made only when thrown: quoting the line cost ~10,000 instructions, on every answer.
        func problem() -> HTTPParseFailure { .malformed("malformed status line \(HTTPSyntax.quoted(line))") }
        let start = line.startIndex
        guard line.count >= 12, line[(start + 8)] == HTTPSyntax.space else { throw problem() }
        let versionBytes = line[start..<(start + 8)]
        if versionBytes.elementsEqual("HTTP/1.1".utf8) {
            version = .http1_1
        } else if versionBytes.elementsEqual("HTTP/1.0".utf8) {
            version = .http1_0
        } else {
            throw .malformed("unsupported HTTP version \(HTTPSyntax.quoted(versionBytes))")
        }
        guard let code = HTTPSyntax.decimalValue(line[(start + 9)..<(start + 12)]), (100...599).contains(code) else {
            throw problem()
        }
        let rest = line[(start + 12)...]
        if let first = rest.first {
            guard first == HTTPSyntax.space, rest.dropFirst().allSatisfy(HTTPSyntax.isFieldValueByte) else {
                throw problem()
            }
        }
        status = code
        reason = String(decoding: rest.dropFirst(), as: UTF8.self)
    }

    private func checkHeaderSize(_ bytes: Int) throws(HTTPParseFailure) {
        if bytes > limits.maxHeaderBytes {
            throw .malformed("header section exceeds the limit of \(limits.maxHeaderBytes) bytes")
        }
    }

    private mutating func headComplete() throws(HTTPParseFailure) -> HTTPResponseParseEvent? {
        if (100...199).contains(status) {
            // We never ask to switch protocols, so 101 is a broken server; other 1xx are interim.
            if status == 101 { throw .malformed("unexpected 101 Switching Protocols") }
            resetMessage()
            return nil
        }
        if requestMethod == "HEAD" || HTTPResponse.statusForbidsBody(status) {
            return complete(keepAliveAllowed: true)
        }
        if facts.hasTransferEncoding {
            if facts.contentLength != nil {
                throw .malformed("both Content-Length and Transfer-Encoding are present")
            }
            guard facts.isChunkedOnly else {
                let codings = facts.transferCodings.joined(separator: ", ")
                throw .malformed("unsupported Transfer-Encoding '\(codings)'")
            }
            state = .chunkedBody
            chunked = HTTPChunkedDecoder()
        } else if let length = facts.contentLength {
            guard length <= limits.maxBodyBytes else {
                throw .malformed("response body exceeds the limit of \(limits.maxBodyBytes) bytes")
            }
            state = .fixedBody(remaining: length)
            body.reserveCapacity(min(length, 1 << 22))
        } else {
            state = .untilClose
        }
        return nil
    }

    private mutating func complete(keepAliveAllowed: Bool) -> HTTPResponseParseEvent {
        let response = HTTPResponse(status: status, reason: reason, version: version, headers: headers, body: body)
        let keepAlive = keepAliveAllowed && HTTPSyntax.keepAlive(
            version: version, close: facts.connectionClose, keepAlive: facts.connectionKeepAlive)
        resetMessage()
        if !keepAliveAllowed { state = .closed }
        return .response(response, keepAlive: keepAlive)
    }

    private mutating func resetMessage() {
        status = 0
        reason = ""
        headers = HTTPHeaders()
        facts = HTTPFramingFacts()
        headerBytes = 0
        lineNumber = 1
        body = []
        state = .statusLine
    }
}
