#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TableProtocol
import TodoBasics

/// Reads one response from a stream with the codec's `HTTPResponseParser`, until a deadline.
/// Shared by the socket transport (plain or TLS) and the helper transport, which differ only in
/// what sits behind the stream.
enum ResponseReader {
    enum Outcome: Equatable {
        /// `reusable`: the response allows keep-alive and nothing beyond it arrived.
        case response(HTTPResponse, reusable: Bool)
        /// `receivedAny`: some bytes of a response had arrived.
        case timedOut(receivedAny: Bool)
        /// EOF or reset before a complete response. `receivedAny` as above.
        case lost(reason: String, receivedAny: Bool)
        /// Bytes that are not an HTTP/1.x response.
        case malformed(String)
    }

    /// A response from a plain descriptor (the helper's socket).
    static func read(_ fd: Int32, method: String, until deadline: Deadline) -> Outcome {
        read(PlainStream(fd: fd), method: method, until: deadline)
    }

    static func read(_ stream: some ByteStream, method: String, until deadline: Deadline) -> Outcome {
        var parser = HTTPResponseParser(requestMethod: method)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var receivedAny = false
        while true {
            switch parser.next() {
            case .response(let response, let keepAlive):
                return .response(response, reusable: keepAlive && !parser.isResponseInProgress)
            case .error(let message):
                return .malformed(message)
            case nil:
                break
            }
            let outcome = buffer.withUnsafeMutableBytes { StreamIO.receive(stream, into: $0, until: deadline) }
            switch outcome {
            case .bytes(let count):
                receivedAny = true
                parser.feed(buffer[0..<count])
            case .timedOut:
                return .timedOut(receivedAny: receivedAny)
            case .endOfInput:
                return ended(&parser, receivedAny: receivedAny, reason: nil)
            case .failed(let code, let reason):
                return ended(&parser, receivedAny: receivedAny, reason: code == ECONNRESET ? "connection reset by peer" : reason)
            }
        }
    }

    /// At EOF a close-delimited body completes; anything else is a lost connection.
    private static func ended(_ parser: inout HTTPResponseParser, receivedAny: Bool, reason: String?) -> Outcome {
        if reason == nil {
            parser.finish()
            if case .response(let response, _) = parser.next() {
                return .response(response, reusable: false)
            }
        }
        if let reason { return .lost(reason: reason, receivedAny: receivedAny) }
        let what = receivedAny ? "the server closed the connection in the middle of the response"
            : "the server closed the connection without answering"
        return .lost(reason: what, receivedAny: receivedAny)
    }
}
