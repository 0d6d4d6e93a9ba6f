import TableProtocol

/// Serves one connection, from accept to close, on its own thread.
///
/// The loop: wait for input (with the deadline that applies now), read, hand the bytes to the
/// parser, answer every complete request in order, write the answers in one go, repeat.
/// Deadlines (`spec/protocol.md` §3.3): while part of a request has arrived, the whole request must
/// arrive within `requestTimeout` of its first byte (then 408 and close); between requests, the
/// connection may stay idle for `idleTimeout` (then a silent close).
///
/// Shutdown: an idle connection closes as soon as the stop signal fires. A request already being
/// answered or being received is completed, answered with `Connection: close`, then the connection
/// closes. Any later reads wait on the socket only, so the stop signal cannot make them spin.
struct HTTPConnectionHandler: ~Copyable {
    /// Answers to pipelined requests are gathered into one write, up to this many bytes.
    static let flushThreshold = 64 * 1024
    /// Bytes read per `recv`.
    static let readBufferBytes = 32 * 1024

    private let socket: ConnectionSocket
    private let configuration: HTTPServerConfiguration
    private let application: HTTPApplication
    private let stop: StopSignal
    private var parser: HTTPRequestParser
    private var output: [UInt8] = []

    /// What to do after the input read so far has been answered.
    private enum Verdict {
        /// Keep reading. `completed` requests were answered.
        case keepOpen(completed: Int)
        /// A final response was written: drain, then close (see `ConnectionSocket.closeLingering`).
        case closeAfterResponse
        /// The peer is gone: close at once.
        case closeNow
    }

    init(socket: consuming ConnectionSocket, configuration: HTTPServerConfiguration,
         application: HTTPApplication, stop: StopSignal) {
        self.socket = socket
        self.configuration = configuration
        self.application = application
        self.stop = stop
        self.parser = HTTPRequestParser(limits: configuration.limits)
    }

    consuming func run() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readBufferBytes, alignment: 1)
        defer { buffer.deallocate() }
        var requestStart = ContinuousClock.now
        var idleSince = ContinuousClock.now

        while true {
            let inProgress = parser.isRequestInProgress
            if !inProgress && stop.isFired { return }
            let deadline = inProgress
                ? requestStart.advanced(by: configuration.requestTimeout)
                : idleSince.advanced(by: configuration.idleTimeout)

            switch socket.wait(until: deadline, stop: inProgress ? nil : stop) {
            case .stopRequested:
                return
            case .timedOut:
                guard inProgress else { return }
                answerTimeout(since: requestStart)
                socket.closeLingering(until: .now.advanced(by: configuration.lingerTimeout), stop: stop)
                return
            case .readable:
                let readTime = ContinuousClock.now
                guard case .bytes(let count) = socket.read(into: buffer) else { return }
                parser.feed(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                switch answerAvailable() {
                case .closeNow:
                    return
                case .closeAfterResponse:
                    socket.closeLingering(until: .now.advanced(by: configuration.lingerTimeout), stop: stop)
                    return
                case .keepOpen(let completed):
                    if parser.isRequestInProgress {
                        // A request that began in this read starts its clock now; one that was
                        // already under way keeps the clock of its first byte.
                        if !inProgress || completed > 0 { requestStart = readTime }
                    } else {
                        idleSince = .now
                    }
                }
            }
        }
    }

    // MARK: - Answering

    /// Answers every complete request in the parser, in order, and writes the answers.
    private mutating func answerAvailable() -> Verdict {
        output.removeAll(keepingCapacity: true)
        var completed = 0
        while let event = parser.next() {
            switch event {
            case .request(let request, let keepAlive):
                completed += 1
                let closing = answer(request, keepAlive: keepAlive)
                if closing { return flush() ? .closeAfterResponse : .closeNow }
            case .expectContinue:
                output.append(contentsOf: HTTPSerializer.continueResponse)
            case .error(let status, let message):
                // Limits and malformed input: the parser is dead, so this is the last answer.
                let start = ContinuousClock.now
                append(application.errorResponse(status, message), method: nil, closing: true, http1_0: false)
                application.log(HTTPRequestLog.line(
                    method: nil, target: nil, status: status, elapsed: start.duration(to: .now)))
                return flush() ? .closeAfterResponse : .closeNow
            }
            if output.count >= Self.flushThreshold && !flush() { return .closeNow }
        }
        return flush() ? .keepOpen(completed: completed) : .closeNow
    }

    /// Runs the application for one request and appends its answer. Returns whether the
    /// connection closes after it.
    private mutating func answer(_ request: HTTPRequest, keepAlive: Bool) -> Bool {
        let start = ContinuousClock.now
        let response = application.respond(request)
        let closing = !keepAlive || stop.isFired || response.headers.containsToken("close", forName: "Connection")
        append(response, method: request.method, closing: closing, http1_0: request.version == .http1_0)
        application.log(HTTPRequestLog.line(
            method: request.method, target: request.target, status: response.status,
            elapsed: start.duration(to: .now)))
        return closing
    }

    /// 408 for a request that did not arrive in time.
    private mutating func answerTimeout(since requestStart: ContinuousClock.Instant) {
        output.removeAll(keepingCapacity: true)
        let message = "the request did not arrive completely within "
            + HTTPRequestLog.readable(configuration.requestTimeout)
        append(application.errorResponse(408, message), method: nil, closing: true, http1_0: false)
        application.log(HTTPRequestLog.line(
            method: nil, target: nil, status: 408, elapsed: requestStart.duration(to: .now)))
        _ = flush()
    }

    /// Serializes `response` with the connection's framing headers. HEAD answers keep the
    /// `Content-Length` of the body they would have had, but not the body (RFC 9110 §9.3.2).
    private mutating func append(_ response: HTTPResponse, method: String?, closing: Bool, http1_0: Bool) {
        var response = response
        if closing {
            response.headers.set(name: "Connection", value: "close")
        } else if http1_0 {
            // An HTTP/1.0 client assumes close unless told otherwise.
            response.headers.set(name: "Connection", value: "keep-alive")
        }
        HTTPSerializer.append(response, to: &output)
        if method == "HEAD" && !HTTPResponse.statusForbidsBody(response.status) {
            output.removeLast(response.body.count)
        }
    }

    /// Writes and empties `output`; false when the peer is gone.
    private mutating func flush() -> Bool {
        guard !output.isEmpty else { return true }
        let written = socket.write(output)
        output.removeAll(keepingCapacity: output.count <= Self.flushThreshold * 2)
        return written
    }
}
