import Testing
import TodoBasics
@testable import TableProtocol

@Suite("HTTP request parser: messages, bodies, pipelining")
struct HTTPRequestParserTests {
    typealias T = HTTPTestSupport

    @Test func simpleGetParsesEveryWaySplit() throws {
        let input = T.bytes("GET /tables/todoitem?$top=5 HTTP/1.1\r\nHost: example.com\r\nAccept: application/json\r\n\r\n")
        let events = T.requestEventsAllSplits(input)
        let requests = T.requests(events)
        try #require(requests.count == 1)
        let request = requests[0].request
        #expect(request.method == "GET")
        #expect(request.target == "/tables/todoitem?$top=5")
        #expect(request.version == .http1_1)
        #expect(request.headers.fields == [
            HTTPHeader(name: "Host", value: "example.com"),
            HTTPHeader(name: "Accept", value: "application/json"),
        ])
        #expect(request.body.isEmpty)
        #expect(requests[0].keepAlive)
    }

    @Test func contentLengthBodyEveryWaySplit() throws {
        let body = #"{"id":"a","text":"héllo"}"#
        let input = T.bytes("POST /tables/todoitem HTTP/1.1\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        let requests = T.requests(T.requestEventsAllSplits(input))
        try #require(requests.count == 1)
        #expect(requests[0].request.body == T.bytes(body))
        #expect(requests[0].request.headers["content-length"] == String(body.utf8.count))
    }

    @Test func zeroLengthBodies() throws {
        let input = T.bytes(
            "POST /a HTTP/1.1\r\nContent-Length: 0\r\n\r\n"
                + "POST /b HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
        let requests = T.requests(T.requestEventsAllSplits(input))
        #expect(requests.map(\.request.target) == ["/a", "/b"])
        #expect(requests.allSatisfy { $0.request.body.isEmpty })
    }

    @Test func chunkedBodyWithExtensionsAndTrailers() throws {
        let input = T.bytes(
            "PATCH /tables/t/1 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;name=value\r\nhello\r\n"
                + "1 ; ext\r\n \r\n"
                + "A\r\n0123456789\r\n"
                + "0\r\nX-Checksum: abc\r\nX-Other: def\r\n\r\n")
        let requests = T.requests(T.requestEventsAllSplits(input))
        try #require(requests.count == 1)
        #expect(requests[0].request.body == T.bytes("hello 0123456789"))
        // Trailers are dropped, never merged into the headers.
        #expect(requests[0].request.headers["X-Checksum"] == nil)
    }

    @Test func chunkSizesAreHexInAnyCase() throws {
        let data = String(repeating: "x", count: 0x1F)
        let input = T.bytes("POST / HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n1f\r\n\(data)\r\n1F\r\n\(data)\r\n0\r\n\r\n")
        let requests = T.requests(T.requestEvents(input))
        #expect(requests.first?.request.body.count == 2 * 0x1F)
    }

    @Test func getAndDeleteBodiesAreConsumedSoPipeliningStaysAligned() throws {
        let input = T.bytes(
            "GET /a HTTP/1.1\r\nContent-Length: 4\r\n\r\nGET "
                + "DELETE /b HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nGET\r\n0\r\n\r\n"
                + "GET /c HTTP/1.1\r\n\r\n")
        let requests = T.requests(T.requestEventsAllSplits(input))
        #expect(requests.map(\.request.method) == ["GET", "DELETE", "GET"])
        #expect(requests.map(\.request.target) == ["/a", "/b", "/c"])
        #expect(requests.map(\.request.body) == [T.bytes("GET "), T.bytes("GET"), []])
    }

    @Test func pipelinedRequestsComeOutInOrderAndAPartialFourthIsKept() throws {
        let three = "POST /1 HTTP/1.1\r\nContent-Length: 3\r\n\r\none"
            + "PUT /2 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\ntwo\r\n0\r\n\r\n"
            + "GET /3 HTTP/1.1\r\nConnection: close\r\n\r\n"
        let fourth = "POST /4 HTTP/1.1\r\nContent-Length: 4\r\n\r\nfo"
        var parser = HTTPRequestParser()
        parser.feed(T.bytes(three + fourth))
        var events: [HTTPParseEvent] = []
        while let event = parser.next() { events.append(event) }
        let requests = T.requests(events)
        #expect(requests.map(\.request.target) == ["/1", "/2", "/3"])
        #expect(requests.map(\.request.body) == [T.bytes("one"), T.bytes("two"), []])
        #expect(requests.map(\.keepAlive) == [true, true, false])
        #expect(parser.isRequestInProgress)

        parser.feed(T.bytes("ur"))
        guard case .request(let last, _)? = parser.next() else {
            Issue.record("the kept partial request did not complete")
            return
        }
        #expect(last.target == "/4")
        #expect(last.body == T.bytes("four"))
        #expect(parser.next() == nil)
        #expect(!parser.isRequestInProgress)
    }

    @Test func requestInProgressTracksPartialInput() {
        var parser = HTTPRequestParser()
        #expect(!parser.isRequestInProgress)
        parser.feed(T.bytes("G"))
        #expect(parser.next() == nil)
        #expect(parser.isRequestInProgress)
        parser.feed(T.bytes("ET / HTTP/1.1\r\n\r\n"))
        #expect(parser.next() != nil)
        #expect(parser.next() == nil)
        #expect(!parser.isRequestInProgress)
        // A stray CRLF after a body is skipped and does not count as a new request.
        parser.feed(T.bytes("\r\n"))
        #expect(parser.next() == nil)
        #expect(!parser.isRequestInProgress)
    }

    @Test func expectContinueComesBeforeTheBody() throws {
        var parser = HTTPRequestParser()
        parser.feed(T.bytes("POST /t HTTP/1.1\r\nExpect: 100-Continue\r\nContent-Length: 2\r\n\r\n"))
        #expect(parser.next() == .expectContinue)
        #expect(parser.next() == nil)
        #expect(parser.isRequestInProgress)
        parser.feed(T.bytes("{}"))
        guard case .request(let request, true)? = parser.next() else {
            Issue.record("no request after the body")
            return
        }
        #expect(request.body == T.bytes("{}"))
    }

    @Test func expectContinueEventIsTheSameHoweverSplit() {
        let input = T.bytes("PUT /t HTTP/1.1\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n")
        let events = T.requestEventsAllSplits(input)
        #expect(events.count == 2)
        #expect(events.first == .expectContinue)
    }

    @Test func expectContinueIsNotSignalledWithoutABodyOrForHTTP10() {
        let noBody = T.requestEvents("GET / HTTP/1.1\r\nExpect: 100-continue\r\n\r\n")
        #expect(T.requests(noBody).count == 1)
        let http10 = T.requestEvents("POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\nx")
        #expect(T.requests(http10).count == 1)
    }

    @Test(arguments: [
        ("HTTP/1.1", "", true),
        ("HTTP/1.1", "Connection: close\r\n", false),
        ("HTTP/1.1", "Connection: Keep-Alive, CLOSE\r\n", false),
        ("HTTP/1.1", "Connection: keep-alive\r\n", true),
        ("HTTP/1.0", "", false),
        ("HTTP/1.0", "Connection: keep-alive\r\n", true),
        ("HTTP/1.0", "Connection: Keep-Alive\r\n", true),
        ("HTTP/1.0", "Connection: upgrade, keep-alive\r\n", true),
        ("HTTP/1.0", "Connection: close\r\n", false),
    ])
    func keepAliveRules(version: String, header: String, keepAlive: Bool) throws {
        let events = T.requestEvents("GET / \(version)\r\n\(header)\r\n")
        let requests = T.requests(events)
        try #require(requests.count == 1)
        #expect(requests[0].keepAlive == keepAlive)
        #expect(requests[0].request.keepAlive == keepAlive)
        #expect(requests[0].request.version.description == version)
    }

    @Test func bareLineFeedsAreAcceptedLikeCRLF() throws {
        let lenient = T.requests(T.requestEventsAllSplits(T.bytes(
            "POST /x HTTP/1.1\nHost: h\nTransfer-Encoding: chunked\n\n3\nabc\n0\n\n")))
        let strict = T.requests(T.requestEvents(
            "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"))
        try #require(lenient.count == 1 && strict.count == 1)
        #expect(lenient[0].request == strict[0].request)
    }

    @Test func headerValuesAreTrimmedAndKeepInnerSpaces() throws {
        let requests = T.requests(T.requestEvents("GET / HTTP/1.1\r\nX-A: \t a  b \t\r\nX-Empty:\r\n\r\n"))
        try #require(requests.count == 1)
        #expect(requests[0].request.headers["x-a"] == "a  b")
        #expect(requests[0].request.headers["X-EMPTY"] == "")
    }

    @Test func repeatedIdenticalContentLengthIsOneLength() throws {
        let requests = T.requests(T.requestEvents(
            "POST / HTTP/1.1\r\nContent-Length: 3\r\ncontent-length: 3, 03\r\n\r\nabc"))
        #expect(requests.first?.request.body == T.bytes("abc"))
    }

    @Test func leadingEmptyLinesAreSkipped() throws {
        let requests = T.requests(T.requestEventsAllSplits(T.bytes("\r\n\nGET / HTTP/1.1\r\n\r\n")))
        #expect(requests.count == 1)
    }

    @Test func largeBodyInSmallPiecesIsCopiedExactly() throws {
        var generator = SplitMix64(seed: 7)
        let body = (0..<200_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var input = T.bytes("POST / HTTP/1.1\r\nContent-Length: \(body.count)\r\n\r\n")
        input += body
        var pieces: [ArraySlice<UInt8>] = []
        var start = 0
        while start < input.count {
            let end = min(input.count, start + Int.random(in: 1...1500, using: &generator))
            pieces.append(input[start..<end])
            start = end
        }
        let requests = T.requests(T.requestEvents(pieces))
        #expect(requests.first?.request.body == body)
    }

    @Test func feedAcceptsAnyByteCollection() throws {
        var parser = HTTPRequestParser()
        parser.feed("GET / HTTP/1.1\r\n".utf8)
        parser.feed([UInt8](T.bytes("\r\n")).reversed().reversed())
        guard case .request(let request, _)? = parser.next() else {
            Issue.record("no request")
            return
        }
        #expect(request.target == "/")
    }
}
