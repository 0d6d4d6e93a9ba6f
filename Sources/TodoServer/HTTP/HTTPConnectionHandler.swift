import TableProtocol

/// Serves one connection, from accept to close, on its own thread.
///
/// The loop: wait for input (with the deadline that applies now), read, hand the bytes to the
/// parser, answer every complete request in order, write the answers in one go, repeat.
/// The answers written together also share their durability waits: the application appends their
/// writes one after another and hands back a `DurabilityTicket` with each answer; before anything
/// is written to the socket, the tickets are settled with one wait per table log, and for each
/// answer its response, or its failure response if its ticket failed, is serialized (`HTTPAnswer`).
/// So N pipelined writes cost about one fsync, not N, and no answer leaves before what it reports
/// or shows is durable.
/// Deadlines (`spec/protocol.md` §3.3): while part of a request has arrived, the whole request must
/// arrive within `requestTimeout` of its first byte, and its head within `headerTimeout` (then 408
/// and close); between requests, the connection may stay idle for `idleTimeout` (then a silent
/// close); a new connection must start its first request within `headerTimeout` (issue 17).
/// The handler reports to its `ConnectionSlot` whether it is idle, receiving a head, or busy, so
/// that the accept thread can take the slot of an idle or slow one for a new connection.
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
    /// Who the request log names: the connection's peer, or with `--proxy-protocol` the source
    /// its PROXY header gave.
    private var client: PeerAddress
    private var parser: HTTPRequestParser
    /// Answers (and `100 Continue`s) not yet written, in order. Kept unserialized until `flush()`
    /// has settled their tickets and knows which of its two responses each answer sends.
    private var queued: [Queued] = []
    /// About how many bytes `queued` will take, to write it once it passes `flushThreshold`.
    private var queuedBytes = 0
    /// The bytes being written (kept, with its capacity, from one write to the next).
    private var output: [UInt8] = []

    private enum Queued {
        /// A `100 Continue`, which needs no durability.
        case interim([UInt8])
        case answer(QueuedAnswer)
    }

    /// An answer, with what it takes to serialize and log it.
    private struct QueuedAnswer {
        let answer: HTTPAnswer
        let method: String?
        let target: String?
        let closing: Bool
        let http1_0: Bool
        let start: ContinuousClock.Instant
        /// The client's address for the log (`ClientAddress`).
        let client: String
    }

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
         application: HTTPApplication, stop: StopSignal, peer: UInt32) {
        self.socket = socket
        self.client = PeerAddress(ipv4: peer)
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
        var answeredAny = false
        // With --proxy-protocol, the bytes that came with the header, at the start of `buffer`.
        var carried: Range<Int>? = nil
        if configuration.proxyProtocol {
            switch readProxyHeader(into: buffer) {
            case .gone:
                return
            case .refused:
                socket.slot?.enter(.closing)
                socket.closeLingering(until: .now.advanced(by: configuration.lingerTimeout), stop: stop)
                return
            case .read(let rest):
                carried = rest.isEmpty ? nil : rest
            }
        }

        while true {
            let inProgress = parser.isRequestInProgress
            let input: Range<Int>
            if let rest = carried {
                input = rest
                carried = nil
            } else {
                if !inProgress && stop.isFired { return }
                let receivingHead = inProgress && parser.isReceivingHead
                let deadline = Self.deadline(configuration, inProgress: inProgress, receivingHead: receivingHead,
                                             requestStart: requestStart, idleSince: idleSince, answeredAny: answeredAny)
                switch socket.wait(until: deadline, stop: inProgress ? nil : stop) {
                case .stopRequested:
                    return
                case .timedOut:
                    guard inProgress else { return }
                    socket.slot?.enter(.busy)  // its 408 is being written: not a slot to take
                    answerTimeout(since: requestStart, head: receivingHead)
                    socket.slot?.enter(.closing)
                    socket.closeLingering(until: .now.advanced(by: configuration.lingerTimeout), stop: stop)
                    return
                case .readable:
                    guard case .bytes(let count) = socket.read(into: buffer) else { return }
                    input = 0..<count
                }
            }
            let readTime = ContinuousClock.now
            socket.slot?.enter(.busy)
            parser.feed(UnsafeRawBufferPointer(rebasing: buffer[input]))
            switch answerAvailable() {
            case .closeNow:
                return
            case .closeAfterResponse:
                socket.slot?.enter(.closing)
                socket.closeLingering(until: .now.advanced(by: configuration.lingerTimeout), stop: stop)
                return
            case .keepOpen(let completed):
                answeredAny = answeredAny || completed > 0
                if parser.isRequestInProgress {
                    // A request that began in this read starts its clock now; one that was
                    // already under way keeps the clock of its first byte.
                    if !inProgress || completed > 0 { requestStart = readTime }
                    socket.slot?.enter(parser.isReceivingHead ? .head(since: requestStart) : .busy)
                } else {
                    idleSince = .now
                    socket.slot?.enter(.idle(since: idleSince))
                }
            }
        }
    }

    /// When the wait for more input ends: the whole request's deadline and, while its head is
    /// arriving, the head's; between requests the idle one, shortened to the header timeout for a
    /// connection that never sent a request.
    private static func deadline(_ configuration: HTTPServerConfiguration, inProgress: Bool, receivingHead: Bool,
                                 requestStart: ContinuousClock.Instant, idleSince: ContinuousClock.Instant,
                                 answeredAny: Bool) -> ContinuousClock.Instant {
        if inProgress {
            let whole = requestStart.advanced(by: configuration.requestTimeout)
            return receivingHead ? min(whole, requestStart.advanced(by: configuration.headerTimeout)) : whole
        }
        let idle = answeredAny ? configuration.idleTimeout : min(configuration.idleTimeout, configuration.headerTimeout)
        return idleSince.advanced(by: idle)
    }

    // MARK: - PROXY protocol (`--proxy-protocol`)

    private enum ProxyHeaderOutcome {
        /// The header was read; `rest`: the bytes that came after it, at the start of the buffer.
        case read(rest: Range<Int>)
        /// A 400 or 408 was written: close after it.
        case refused
        /// Close at once: the peer left, sent nothing in time, or the server stops.
        case gone
    }

    /// Reads the PROXY protocol header that must open the connection into `buffer` (it is far
    /// larger than any header) and makes the header's source the connection's client. The header
    /// must arrive within the header timeout, as a request's head must. Anything else gets a 400
    /// and a log line saying why, with the bytes that came (nginx's "broken header").
    private mutating func readProxyHeader(into buffer: UnsafeMutableRawBufferPointer) -> ProxyHeaderOutcome {
        let start = ContinuousClock.now
        let patience = min(configuration.headerTimeout, configuration.idleTimeout)
        socket.slot?.enter(.head(since: start))
        var count = 0
        while true {
            switch socket.wait(until: start.advanced(by: patience), stop: count == 0 ? stop : nil) {
            case .stopRequested:
                return .gone
            case .timedOut:
                guard count > 0 else { return .gone }  // as a new connection that never sends a request
                return refuseProxyHeader(408, "it did not arrive completely within \(HTTPRequestLog.readable(patience))",
                                         received: UnsafeRawBufferPointer(rebasing: buffer[..<count]), since: start)
            case .readable:
                guard case .bytes(let read) = socket.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[count...])) else {
                    return .gone
                }
                count += read
            }
            let received = UnsafeRawBufferPointer(rebasing: buffer[..<count])
            switch ProxyProtocolHeader.parse(received) {
            case .needMore:
                continue
            case .header(let length, let source):
                if let source { client = source }
                return .read(rest: length..<count)
            case .invalid(let reason):
                return refuseProxyHeader(400, reason, received: received, since: start)
            }
        }
    }

    private mutating func refuseProxyHeader(_ status: Int, _ reason: String, received: UnsafeRawBufferPointer,
                                            since start: ContinuousClock.Instant) -> ProxyHeaderOutcome {
        socket.slot?.enter(.busy)
        var response = application.errorResponse(status, "the connection must start with a PROXY protocol header "
            + "(this server runs with --proxy-protocol), but \(reason): connect through the proxy, and have it send "
            + "the header (nginx: proxy_protocol on;)")
        response.headers.set(name: "Connection", value: "close")
        application.log?(HTTPRequestLog.line(client: client.text, method: nil, target: nil, status: status,
                                             elapsed: start.duration(to: .now))
            + " broken PROXY protocol header: \(reason): " + ProxyProtocolHeader.excerpt(received))
        return socket.write(HTTPSerializer.serialize(response)) ? .refused : .gone
    }

    // MARK: - Answering

    /// Answers every complete request in the parser, in order, and writes the answers.
    private mutating func answerAvailable() -> Verdict {
        var completed = 0
        while let event = parser.next() {
            switch event {
            case .request(let request, let keepAlive):
                completed += 1
                let closing = answer(request, keepAlive: keepAlive)
                if closing { return flush() ? .closeAfterResponse : .closeNow }
            case .expectContinue:
                queued.append(.interim(HTTPSerializer.continueResponse))
            case .error(let status, let message):
                // Limits and malformed input: the parser is dead, so this is the last answer.
                let start = ContinuousClock.now
                queue(.durable(application.errorResponse(status, message)), method: nil, target: nil, closing: true,
                      http1_0: false, start: start)
                return flush() ? .closeAfterResponse : .closeNow
            }
            if queuedBytes >= Self.flushThreshold && !flush() { return .closeNow }
        }
        return flush() ? .keepOpen(completed: completed) : .closeNow
    }

    /// Runs the application for one request and queues its answer. Returns whether the
    /// connection closes after it. Its ticket is settled in `flush()`, with the others queued.
    private mutating func answer(_ request: HTTPRequest, keepAlive: Bool) -> Bool {
        let start = ContinuousClock.now
        let answer = application.answer(request)
        let closing = !keepAlive || stop.isFired || answer.response.headers.containsToken("close", forName: "Connection")
        let client = application.log == nil ? "" : ClientAddress.of(
            forwardedFor: request.headers["X-Forwarded-For"], peer: self.client, trusted: configuration.trustedProxies)
        queue(answer, method: request.method, target: request.target, closing: closing,
              http1_0: request.version == .http1_0, start: start, client: client)
        return closing
    }

    /// 408 for a request (`head`: its header section) that did not arrive in time.
    private mutating func answerTimeout(since requestStart: ContinuousClock.Instant, head: Bool) {
        let message = head
            ? "the request's header section did not arrive completely within "
                + HTTPRequestLog.readable(min(configuration.headerTimeout, configuration.requestTimeout))
            : "the request did not arrive completely within " + HTTPRequestLog.readable(configuration.requestTimeout)
        queue(.durable(application.errorResponse(408, message)), method: nil, target: nil, closing: true,
              http1_0: false, start: requestStart)
        _ = flush()
    }

    /// Queues `answer` for `flush()`.
    private mutating func queue(_ answer: HTTPAnswer, method: String?, target: String?, closing: Bool,
                                http1_0: Bool, start: ContinuousClock.Instant, client: String? = nil) {
        queued.append(.answer(QueuedAnswer(answer: answer, method: method, target: target, closing: closing,
                                           http1_0: http1_0, start: start, client: client ?? self.client.text)))
        // The head is a few hundred bytes; only large bodies matter for the threshold.
        queuedBytes += answer.response.body.count + 256
    }

    /// Serializes `response` with the connection's framing headers. HEAD answers keep the
    /// `Content-Length` of the body they would have had, but not the body (RFC 9110 §9.3.2).
    private static func serialize(_ response: HTTPResponse, method: String?, closing: Bool, http1_0: Bool,
                                  into bytes: inout [UInt8]) {
        var response = response
        if closing {
            response.headers.set(name: "Connection", value: "close")
        } else if http1_0 {
            // An HTTP/1.0 client assumes close unless told otherwise.
            response.headers.set(name: "Connection", value: "keep-alive")
        }
        HTTPSerializer.append(response, to: &bytes)
        if method == "HEAD" && !HTTPResponse.statusForbidsBody(response.status) {
            bytes.removeLast(response.body.count)
        }
    }

    /// Settles the tickets of the queued answers (one wait per table log, `DurabilityTicket.settle`),
    /// serializes for each the response its ticket allows, logs it, then writes them all and empties
    /// the queue; false when the peer is gone.
    private mutating func flush() -> Bool {
        var tickets: [DurabilityTicket] = []
        tickets.reserveCapacity(queued.count)
        for case .answer(let queuedAnswer) in queued { tickets.append(queuedAnswer.answer.ticket) }
        let failures = DurabilityTicket.settle(tickets)
        var number = 0
        for piece in queued {
            switch piece {
            case .interim(let bytes):
                output.append(contentsOf: bytes)
            case .answer(let queuedAnswer):
                let response = queuedAnswer.answer.response(settled: failures[number])
                number += 1
                Self.serialize(response, method: queuedAnswer.method, closing: queuedAnswer.closing,
                               http1_0: queuedAnswer.http1_0, into: &output)
                if let log = application.log {
                    log(HTTPRequestLog.line(client: queuedAnswer.client, method: queuedAnswer.method, target: queuedAnswer.target,
                                            status: response.status, elapsed: queuedAnswer.start.duration(to: .now)))
                }
            }
        }
        queued.removeAll(keepingCapacity: true)
        queuedBytes = 0
        guard !output.isEmpty else { return true }
        let written = socket.write(output)
        output.removeAll(keepingCapacity: output.count <= Self.flushThreshold * 2)
        return written
    }
}
