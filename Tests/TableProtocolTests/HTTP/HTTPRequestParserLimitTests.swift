import Testing
@testable import TableProtocol

@Suite("HTTP request parser: limits (414, 431, 413)")
struct HTTPRequestParserLimitTests {
    typealias T = HTTPTestSupport
    static let limits = HTTPLimits.requestDefaults

    private func get(target: String) -> [UInt8] {
        T.bytes("GET \(target) HTTP/1.1\r\nHost: h\r\n\r\n")
    }

    @Test func defaultsMatchTheProtocol() {
        #expect(Self.limits.maxTargetBytes == 16_384)
        #expect(Self.limits.maxHeaderBytes == 65_536)
        #expect(Self.limits.maxBodyBytes == 1_048_576)
        #expect(HTTPLimits.responseDefaults.maxBodyBytes == 64 * 1_048_576)
    }

    @Test func targetAtTheLimitIsAccepted() throws {
        let target = "/" + String(repeating: "a", count: Self.limits.maxTargetBytes - 1)
        let requests = T.requests(T.requestEvents(get(target: target)))
        #expect(requests.first?.request.target.utf8.count == Self.limits.maxTargetBytes)
    }

    @Test func targetOverTheLimitIs414() throws {
        let target = "/" + String(repeating: "a", count: 20_000)
        #expect(T.errorStatus(T.requestEvents(get(target: target)))?.status == 414)
    }

    @Test func targetOverTheLimitIs414BeforeTheLineEnds() {
        var parser = HTTPRequestParser()
        parser.feed(T.bytes("GET /" + String(repeating: "a", count: Self.limits.maxTargetBytes - 1)))
        #expect(parser.next() == nil)
        parser.feed(T.bytes("b"))
        guard case .error(414, _)? = parser.next() else {
            Issue.record("expected 414 once the target passed the limit")
            return
        }
        #expect(parser.hasFailed)
        #expect(!parser.isRequestInProgress)
    }

    @Test func smallConfiguredTargetLimitSplitsAlike() {
        let limits = HTTPLimits(maxTargetBytes: 8)
        #expect(T.requests(T.requestEventsAllSplits(get(target: "/1234567"), limits: limits)).count == 1)
        #expect(T.errorStatus(T.requestEventsAllSplits(get(target: "/12345678"), limits: limits))?.status == 414)
    }

    /// A header section of exactly `size` bytes: request line, then fields, then the empty line.
    private func request(headerSectionBytes size: Int) -> [UInt8] {
        let overhead = "X-Fill: \r\n\r\n".utf8.count
        let fill = String(repeating: "f", count: size - overhead)
        return T.bytes("GET / HTTP/1.1\r\nX-Fill: \(fill)\r\n\r\n")
    }

    @Test func headerSectionAtTheLimitIsAccepted() throws {
        let requests = T.requests(T.requestEvents(request(headerSectionBytes: Self.limits.maxHeaderBytes)))
        #expect(requests.count == 1)
    }

    @Test func headerSectionOverTheLimitIs431() throws {
        let events = T.requestEvents(request(headerSectionBytes: Self.limits.maxHeaderBytes + 1))
        #expect(T.errorStatus(events)?.status == 431)
    }

    @Test func manySmallHeadersOverTheLimitAre431() throws {
        let line = "X-Many: " + String(repeating: "v", count: 90) + "\r\n"
        let text = "GET / HTTP/1.1\r\n" + String(repeating: line, count: 1_000) + "\r\n"
        #expect(T.errorStatus(T.requestEvents(text))?.status == 431)
    }

    @Test func endlessHeaderLineIs431WithoutWaitingForItsEnd() {
        var parser = HTTPRequestParser()
        parser.feed(T.bytes("GET / HTTP/1.1\r\nX-Endless: "))
        let chunk = [UInt8](repeating: 0x61, count: 4096)
        var status: Int?
        for _ in 0..<20 where status == nil {
            parser.feed(chunk)
            if case .error(let code, _)? = parser.next() { status = code }
        }
        #expect(status == 431)
    }

    @Test func smallConfiguredHeaderLimitSplitsAlike() {
        let limits = HTTPLimits(maxHeaderBytes: 40)
        #expect(T.requests(T.requestEventsAllSplits(request(headerSectionBytes: 40), limits: limits)).count == 1)
        #expect(T.errorStatus(T.requestEventsAllSplits(request(headerSectionBytes: 41), limits: limits))?.status == 431)
    }

    @Test func bodyExactlyAtTheLimitIsAccepted() throws {
        let body = [UInt8](repeating: 0x7A, count: Self.limits.maxBodyBytes)
        let fixed = T.bytes("POST / HTTP/1.1\r\nContent-Length: \(body.count)\r\n\r\n") + body
        #expect(T.requests(T.requestEvents(fixed)).first?.request.body.count == body.count)

        let half = body.count / 2
        let chunked = T.bytes("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n")
            + T.bytes(String(half, radix: 16) + "\r\n") + body[..<half] + T.bytes("\r\n")
            + T.bytes(String(body.count - half, radix: 16) + "\r\n") + body[half...] + T.bytes("\r\n0\r\n\r\n")
        #expect(T.requests(T.requestEvents(chunked)).first?.request.body.count == body.count)
    }

    @Test func declaredLengthOverTheLimitIs413AtOnce() {
        var parser = HTTPRequestParser()
        parser.feed(T.bytes("POST / HTTP/1.1\r\nContent-Length: 1048577\r\n\r\n"))
        guard case .error(413, let message)? = parser.next() else {
            Issue.record("expected 413 before any body byte")
            return
        }
        #expect(message.contains("1048577"))
        parser.feed(T.bytes("more bytes are ignored"))
        #expect(parser.next() == nil)
    }

    @Test func hugeDeclaredLengthIs413NotAnOverflow() {
        let events = T.requestEvents("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999999\r\n\r\n")
        #expect(T.errorStatus(events)?.status == 413)
    }

    @Test func expectContinueWithTooLargeDeclaredLengthIs413InsteadOfContinue() {
        let events = T.requestEvents("PUT / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2000000\r\n\r\n")
        #expect(events.count == 1)
        #expect(T.errorStatus(events)?.status == 413)
    }

    @Test func chunkedBodyIs413AsSoonAsItCrossesTheLimit() {
        var parser = HTTPRequestParser(limits: HTTPLimits(maxBodyBytes: 10))
        parser.feed(T.bytes("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n"))
        #expect(parser.next() == nil)
        parser.feed(T.bytes("5\r\n"))
        guard case .error(413, _)? = parser.next() else {
            Issue.record("expected 413 when the second chunk would pass the limit")
            return
        }
    }

    @Test func chunkedBodyLimitIsTheSameHoweverSplit() {
        let limits = HTTPLimits(maxBodyBytes: 10)
        let atLimit = T.bytes("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n4\r\nghij\r\n0\r\n\r\n")
        #expect(T.requests(T.requestEventsAllSplits(atLimit, limits: limits)).first?.request.body.count == 10)
        let over = T.bytes("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n5\r\nghijk\r\n0\r\n\r\n")
        #expect(T.errorStatus(T.requestEventsAllSplits(over, limits: limits))?.status == 413)
    }

    @Test func hugeChunkSizeIs413NotAnOverflow() {
        let events = T.requestEvents("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFFFFFF\r\n")
        #expect(T.errorStatus(events)?.status == 413)
    }

    @Test func oversizedTrailersAre431() {
        let limits = HTTPLimits(maxHeaderBytes: 64)
        let trailer = "X-T: " + String(repeating: "t", count: 80) + "\r\n"
        let events = T.requestEventsAllSplits(
            T.bytes("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\(trailer)\r\n"), limits: limits)
        #expect(T.errorStatus(events)?.status == 431)
    }
}
