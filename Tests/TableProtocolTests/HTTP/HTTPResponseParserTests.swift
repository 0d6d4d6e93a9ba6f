import Testing
@testable import TableProtocol

@Suite("HTTP response parser")
struct HTTPResponseParserTests {
    typealias T = HTTPTestSupport

    private func responses(
        _ events: [HTTPResponseParseEvent], sourceLocation: SourceLocation = #_sourceLocation
    ) -> [(response: HTTPResponse, keepAlive: Bool)] {
        events.compactMap { event in
            guard case .response(let response, let keepAlive) = event else {
                Issue.record("unexpected event \(event)", sourceLocation: sourceLocation)
                return nil
            }
            return (response, keepAlive)
        }
    }

    private func errorMessage(_ events: [HTTPResponseParseEvent]) -> String? {
        guard case .error(let message)? = events.last else { return nil }
        return message
    }

    @Test func contentLengthResponseEveryWaySplit() throws {
        let input = T.bytes("HTTP/1.1 201 Created\r\nContent-Length: 7\r\nETag: \"AAE=\"\r\n\r\n{\"a\":1}")
        let all = responses(T.responseEventsAllSplits(input))
        try #require(all.count == 1)
        #expect(all[0].response.status == 201)
        #expect(all[0].response.reason == "Created")
        #expect(all[0].response.headers["etag"] == "\"AAE=\"")
        #expect(all[0].response.body == T.bytes("{\"a\":1}"))
        #expect(all[0].keepAlive)
    }

    @Test func chunkedResponseEveryWaySplit() throws {
        let input = T.bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;x=y\r\n[1,2\r\n2\r\n,3\r\n1\r\n]\r\n0\r\nX-Trailer: t\r\n\r\n")
        let all = responses(T.responseEventsAllSplits(input))
        #expect(all.first?.response.body == T.bytes("[1,2,3]"))
    }

    @Test func closeDelimitedBodyCompletesAtFinish() throws {
        let input = T.bytes("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n[\"all\",\"of\",\"it\"]")
        let all = responses(T.responseEventsAllSplits(input))
        try #require(all.count == 1)
        #expect(all[0].response.body == T.bytes("[\"all\",\"of\",\"it\"]"))
        #expect(!all[0].keepAlive)

        var parser = HTTPResponseParser()
        parser.feed(input)
        #expect(parser.next() == nil, "a close-delimited body is not complete before EOF")
        #expect(parser.isResponseInProgress)
    }

    @Test(arguments: [204, 304])
    func noBodyStatusesIgnoreLengthHeaders(status: Int) throws {
        let input = T.bytes("HTTP/1.1 \(status) X\r\nContent-Length: 10\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        let all = responses(T.responseEventsAllSplits(input))
        #expect(all.map(\.response.status) == [status, 200])
        #expect(all.map(\.response.body) == [[], T.bytes("ok")])
    }

    @Test func headResponseHasNoBody() throws {
        let input = T.bytes("HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n")
        let all = responses(T.responseEventsAllSplits(input, method: "HEAD"))
        #expect(all.count == 1)
        #expect(all.first?.response.body == [])
        #expect(all.first?.keepAlive == true)
    }

    @Test func interimResponsesAreSkipped() throws {
        let input = T.bytes(
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi")
        let all = responses(T.responseEventsAllSplits(input))
        try #require(all.count == 1)
        #expect(all[0].response.status == 200)
        #expect(all[0].response.headers["Link"] == nil)
    }

    @Test func keepAliveFollowsVersionAndConnection() throws {
        let close = responses(T.responseEvents([T.bytes("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")[...]]))
        #expect(close.first?.keepAlive == false)
        let old = responses(T.responseEvents([T.bytes("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n")[...]]))
        #expect(old.first?.keepAlive == false)
        #expect(old.first?.response.version == .http1_0)
        let oldKept = responses(T.responseEvents([T.bytes("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n")[...]]))
        #expect(oldKept.first?.keepAlive == true)
    }

    @Test func statusLineWithoutReasonIsAccepted() throws {
        let all = responses(T.responseEventsAllSplits(T.bytes("HTTP/1.1 404\r\nContent-Length: 0\r\n\r\n")))
        #expect(all.first?.response.status == 404)
        #expect(all.first?.response.reason == "")
    }

    @Test func reusedConnectionTakesTheNextMethod() throws {
        var parser = HTTPResponseParser(requestMethod: "HEAD")
        parser.feed(T.bytes("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n"))
        guard case .response(let head, true)? = parser.next() else {
            Issue.record("no HEAD response")
            return
        }
        #expect(head.body.isEmpty)
        parser.requestMethod = "GET"
        parser.feed(T.bytes("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc"))
        guard case .response(let get, true)? = parser.next() else {
            Issue.record("no GET response")
            return
        }
        #expect(get.body == T.bytes("abc"))
    }

    @Test func cleanCloseBetweenResponsesIsNotAnError() {
        #expect(T.responseEvents([], finish: true).isEmpty)
        let one = T.responseEvents([T.bytes("HTTP/1.1 204 No Content\r\n\r\n")[...]], finish: true)
        #expect(responses(one).count == 1)
    }

    @Test(arguments: [
        "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
        "HTTP/1.1 200 OK\r\nContent-Le",
        "HTTP/1.1 2",
    ])
    func endOfInputMidMessageIsAnError(input: String) {
        let events = T.responseEventsAllSplits(T.bytes(input))
        #expect(errorMessage(events)?.contains("closed before the response was complete") == true)
    }

    @Test(arguments: [
        ("HTTP/1.1 20 OK\r\n\r\n", "malformed status line"),
        ("HTTP/1.1 abc OK\r\n\r\n", "malformed status line"),
        ("HTTP/1.1 700 Odd\r\n\r\n", "malformed status line"),
        ("HTTP/1.1 200OK\r\n\r\n", "malformed status line"),
        ("HTTP/2 200 OK\r\n\r\n", "malformed status line"),
        ("HTTP/3.0 200 OK\r\n\r\n", "unsupported HTTP version"),
        ("<html>\r\n", "malformed status line"),
        ("HTTP/1.1 101 Switching Protocols\r\n\r\n", "101"),
        ("HTTP/1.1 200 OK\r\nBad Header\r\n\r\n", "malformed header line 2"),
        ("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", "both"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", "unsupported Transfer-Encoding"),
        ("HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\n", "conflicting Content-Length"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "invalid chunk size"),
    ])
    func malformedResponsesAreErrors(input: String, expected: String) {
        let events = T.responseEventsAllSplits(T.bytes(input))
        let message = errorMessage(events)
        #expect(message?.contains(expected) == true, "got \(events)")
    }

    @Test func bodyLimitApplies() {
        let limits = HTTPLimits(maxBodyBytes: 4)
        for input in [
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n",
            "HTTP/1.1 200 OK\r\n\r\n12345",
        ] {
            let events = T.responseEvents([T.bytes(input)[...]], limits: limits, finish: false)
            #expect(errorMessage(events)?.contains("exceeds the limit") == true, "\(input)")
        }
        let atLimit = T.responseEvents([T.bytes("HTTP/1.1 200 OK\r\n\r\n1234")[...]], limits: limits)
        #expect(responses(atLimit).first?.response.body.count == 4)
    }

    @Test func headerLimitApplies() {
        let limits = HTTPLimits(maxHeaderBytes: 32)
        let big = "HTTP/1.1 200 OK\r\nX-Big: \(String(repeating: "b", count: 40))\r\n\r\n"
        let events = T.responseEvents([T.bytes(big)[...]], limits: limits, finish: false)
        #expect(errorMessage(events)?.contains("header section exceeds") == true)
    }
}
