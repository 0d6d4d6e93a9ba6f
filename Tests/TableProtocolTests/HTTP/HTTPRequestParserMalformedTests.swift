import Testing
@testable import TableProtocol

@Suite("HTTP request parser: malformed input is 400")
struct HTTPRequestParserMalformedTests {
    typealias T = HTTPTestSupport

    /// Each case: the raw request, and a piece of the message that must name the problem.
    static let cases: [(String, String)] = [
        // Request line
        ("GET\r\n\r\n", "method"),
        (" GET / HTTP/1.1\r\n\r\n", "does not start with a method"),
        ("GET  / HTTP/1.1\r\n\r\n", "one space"),
        ("GET /\r\n\r\n", "missing HTTP version"),
        ("GET / HTTP/1.1 extra\r\n\r\n", "version"),
        ("GET / HTTP/2.0\r\n\r\n", "unsupported HTTP version 'HTTP/2.0'"),
        ("GET / HTTP/1.2\r\n\r\n", "unsupported HTTP version"),
        ("GET / http/1.1\r\n\r\n", "unsupported HTTP version"),
        ("GET / HTTP/1.1\rX\n\r\n", "CR not followed by LF"),
        ("G(T / HTTP/1.1\r\n\r\n", "invalid character '(' in method"),
        ("GET /a\u{7F}b HTTP/1.1\r\n\r\n", "in target"),
        ("GET /a\tb HTTP/1.1\r\n\r\n", "in target"),
        ("\r\r\n", "CR not followed by LF"),
        ("\r\n\r\n\r\n\r\n\r\nGET / HTTP/1.1\r\n\r\n", "too many empty lines"),
        ("\(String(repeating: "M", count: 40)) / HTTP/1.1\r\n\r\n", "method longer than"),
        // Header lines
        ("GET / HTTP/1.1\r\nHost: h\r\nNoColon\r\n\r\n", "malformed header line 3: missing ':'"),
        ("GET / HTTP/1.1\r\nHost : h\r\n\r\n", "malformed header line 2: whitespace before ':'"),
        ("GET / HTTP/1.1\r\nHo(st: h\r\n\r\n", "invalid character '(' in field name"),
        ("GET / HTTP/1.1\r\n: empty\r\n\r\n", "empty field name"),
        ("GET / HTTP/1.1\r\nX-A: a\r\n  folded\r\n\r\n", "line 3: obsolete line folding"),
        ("GET / HTTP/1.1\r\nX-A: a\u{01}b\r\n\r\n", "invalid character '\\x01' in field value"),
        ("GET / HTTP/1.1\r\nX-A: a\rb\r\n\r\n", "invalid character '\\x0D' in field value"),
        // Framing
        ("POST / HTTP/1.1\r\nContent-Length: abc\r\n\r\n", "invalid Content-Length 'abc'"),
        ("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", "invalid Content-Length"),
        ("POST / HTTP/1.1\r\nContent-Length: +1\r\n\r\nx", "invalid Content-Length"),
        ("POST / HTTP/1.1\r\nContent-Length:\r\n\r\n", "invalid Content-Length"),
        ("POST / HTTP/1.1\r\nContent-Length: 1 2\r\n\r\n", "invalid Content-Length"),
        ("POST / HTTP/1.1\r\nContent-Length: 3, 4\r\n\r\nabcd", "conflicting Content-Length"),
        ("POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", "line 3: conflicting Content-Length"),
        ("POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", "both Content-Length and Transfer-Encoding"),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", "unsupported Transfer-Encoding 'gzip'"),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", "unsupported Transfer-Encoding 'gzip, chunked'"),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", "'chunked, chunked'"),
        ("POST / HTTP/1.1\r\nTransfer-Encoding:\r\n\r\n", "unsupported Transfer-Encoding ''"),
        ("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", "HTTP/1.0"),
        // Chunks
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nxyz\r\n", "invalid chunk size 'xyz'"),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n\r\n", "invalid chunk size ''"),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n", "invalid chunk size"),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n 3\r\nabc\r\n0\r\n\r\n", "invalid chunk size"),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3x\r\nabc\r\n0\r\n\r\n", "invalid chunk size '3x'"),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n0\r\n\r\n", "longer than its declared size"),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\rX0\r\n\r\n", "not followed by CRLF"),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;e=\u{01}\r\nabc\r\n0\r\n\r\n", "chunk extension"),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nbad trailer\r\n\r\n", "malformed trailer line 1: whitespace before ':'"),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n\(String(repeating: "0", count: 5000))\r\n", "chunk size line is too long"),
    ]

    @Test(arguments: cases)
    func malformedRequestIs400(input: String, expected: String) throws {
        let events = T.requestEventsAllSplits(T.bytes(input))
        let error = try #require(T.errorStatus(events))
        #expect(error.status == 400)
        #expect(error.message.contains(expected), "message: \(error.message)")
        #expect(T.requests(Array(events.dropLast())).isEmpty)
    }

    @Test func parserIsDeadAfterAnError() {
        var parser = HTTPRequestParser()
        parser.feed(T.bytes("BAD\r\n"))
        guard case .error(400, _)? = parser.next() else {
            Issue.record("expected 400")
            return
        }
        parser.feed(T.bytes("GET / HTTP/1.1\r\n\r\n"))
        #expect(parser.next() == nil)
        #expect(parser.hasFailed)
        #expect(parser.bufferedByteCount == 0)
    }

    @Test func aGoodRequestBeforeGarbageIsStillDelivered() throws {
        let events = T.requestEventsAllSplits(T.bytes("GET /ok HTTP/1.1\r\n\r\n\u{00}\u{01}garbage"))
        #expect(events.count == 2)
        #expect(T.requests([events[0]]).first?.request.target == "/ok")
        #expect(T.errorStatus(events)?.status == 400)
    }

    @Test func binaryGarbageIs400() {
        let garbage: [UInt8] = [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03]  // a TLS ClientHello start
        #expect(T.errorStatus(T.requestEventsAllSplits(garbage))?.status == 400)
        let nulls = [UInt8](repeating: 0, count: 1000)
        #expect(T.errorStatus(T.requestEvents(nulls))?.status == 400)
    }
}
