#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TableProtocol
import TodoBasics

/// Several requests on one connection, written back to back while the answers are read
/// (HTTP/1.1 pipelining, RFC 9112 §9.3.2). A push of thousands of writes then costs a few
/// system calls and wake-ups per batch instead of four per request, on both sides.
///
/// Writing and reading interleave (one `poll` for both), so neither side can block the other
/// with full socket buffers; the stream may be plain or TLS (`ByteStream`). Answers are matched to requests in order. Each answer must come
/// within `timeout` of the one before it (or of the start). When the connection ends early, every
/// request still unanswered fails, and says whether all of its bytes had gone out: only a request
/// that was never completely written is known not to have reached the server.
struct PipelinedExchange {
    struct Outcome {
        /// One per request, in order.
        var results: [Result<HTTPResponse, TransportFailure>]
        /// The connection can carry further requests: every answer allows keep-alive and
        /// nothing beyond the last one arrived.
        var reusable: Bool
        /// The connection failed before any byte of any answer arrived: on a pooled connection,
        /// the server probably closed it while it was idle.
        var staleSuspect: Bool
    }

    let stream: any ByteStream
    let requests: [HTTPRequest]
    let host: String
    let timeout: Double

    func run() -> Outcome {
        var bytes: [UInt8] = []
        var ends: [Int] = []
        for request in requests {
            bytes.append(contentsOf: HTTPSerializer.serialize(request, host: host))
            ends.append(bytes.count)
        }
        var results: [Result<HTTPResponse, TransportFailure>] = []
        results.reserveCapacity(requests.count)
        var parser = HTTPResponseParser(requestMethod: requests.first?.method ?? "GET")
        var written = 0
        var receivedAny = false
        var deadline = Deadline(secondsFromNow: timeout)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        // What the read side and the write side wait for: POLLIN and POLLOUT, except when TLS
        // needs the other direction first (a handshake message in the middle of the data).
        var readEvents = Int16(POLLIN)
        var writeEvents: Int16 = 0
        var readBlocked = false

        /// Fails every request not yet answered. `sent(i)`: all of request i's bytes went out.
        func failRest(_ failure: (_ sent: Bool) -> TransportFailure) {
            while results.count < requests.count { results.append(.failure(failure(ends[results.count] <= written))) }
        }
        func lost(_ reason: String) -> Outcome {
            failRest { .connectionLost(reason: reason, requestSent: $0) }
            return Outcome(results: results, reusable: false, staleSuspect: !receivedAny)
        }

        while true {
            // Every complete answer the parser holds.
            while results.count < requests.count, let event = parser.next() {
                switch event {
                case .response(let response, let keepAlive):
                    results.append(.success(response))
                    deadline = Deadline(secondsFromNow: timeout)
                    if results.count == requests.count {
                        return Outcome(results: results, reusable: keepAlive && !parser.isResponseInProgress, staleSuspect: false)
                    }
                    guard keepAlive else {
                        return lost("the server closed the connection after answering an earlier request")
                    }
                    parser.requestMethod = requests[results.count].method
                case .error(let message):
                    results.append(.failure(.badResponse(reason: message)))
                    return lost("an earlier answer on the connection was not valid HTTP")
                }
            }
            if written < bytes.count {
                switch bytes.withUnsafeBytes({ stream.send(UnsafeRawBufferPointer(rebasing: $0[written...])) }) {
                case .bytes(let count):
                    written += count
                    continue
                case .blocked(let events):
                    writeEvents = events
                case .endOfInput:
                    return lost("the server closed the connection while the requests were being sent")
                case .failed(let code, let reason):
                    return lost(code == EPIPE || code == ECONNRESET
                                ? "the server closed the connection while the requests were being sent" : reason)
                }
            } else {
                writeEvents = 0
            }
            // Buffered input is received without waiting, unless the last receive blocked on it
            // (part of a TLS record): then only poll tells when the rest has come.
            if readBlocked || !stream.hasBufferedInput {
                guard case .ready(let revents) = DescriptorIO.wait(stream.fd, for: readEvents | writeEvents, until: deadline) else {
                    failRest { .timedOut(seconds: timeout, requestSent: $0) }
                    return Outcome(results: results, reusable: false, staleSuspect: false)
                }
                if revents & (readEvents | Int16(POLLHUP | POLLERR)) == 0 { continue }
            }
            switch buffer.withUnsafeMutableBytes({ stream.receive(into: $0) }) {
            case .bytes(let count):
                receivedAny = true
                readEvents = Int16(POLLIN)
                readBlocked = false
                parser.feed(buffer[0..<count])
            case .blocked(let events):
                readEvents = events
                readBlocked = true
            case .endOfInput:
                parser.finish()
                if case .response(let response, _)? = parser.next() {
                    results.append(.success(response))
                }
                return lost(receivedAny ? "the server closed the connection in the middle of the answers"
                            : "the server closed the connection without answering")
            case .failed(let code, let reason):
                return lost(code == ECONNRESET ? "connection reset by peer" : reason)
            }
        }
    }
}
