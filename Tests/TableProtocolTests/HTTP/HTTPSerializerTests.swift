import Testing
import TodoBasics
@testable import TableProtocol

@Suite("HTTP serializer")
struct HTTPSerializerTests {
    typealias T = HTTPTestSupport

    private func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    @Test func responseHasStatusLineLengthThenHeadersInOrder() {
        let response = HTTPResponse(
            status: 201,
            headers: ["Content-Type": "application/json; charset=utf-8", "ETag": "\"AAE=\"", "Location": "http://h/tables/t/a%2Fb"],
            body: T.bytes("{}"))
        #expect(text(HTTPSerializer.serialize(response)) == "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n"
            + "Content-Type: application/json; charset=utf-8\r\nETag: \"AAE=\"\r\nLocation: http://h/tables/t/a%2Fb\r\n\r\n{}")
    }

    @Test(arguments: [
        (200, "OK"), (201, "Created"), (204, "No Content"), (304, "Not Modified"), (400, "Bad Request"),
        (401, "Unauthorized"), (404, "Not Found"), (405, "Method Not Allowed"), (408, "Request Timeout"),
        (409, "Conflict"), (412, "Precondition Failed"), (413, "Content Too Large"), (414, "URI Too Long"),
        (431, "Request Header Fields Too Large"), (500, "Internal Server Error"), (503, "Service Unavailable"),
    ])
    func standardReasonPhrases(status: Int, reason: String) {
        let bytes = HTTPSerializer.serialize(HTTPResponse(status: status))
        #expect(text(bytes).hasPrefix("HTTP/1.1 \(status) \(reason)\r\n"))
    }

    @Test func unknownStatusHasAnEmptyReason() {
        #expect(text(HTTPSerializer.serialize(HTTPResponse(status: 299))).hasPrefix("HTTP/1.1 299 \r\n"))
    }

    @Test(arguments: [204, 304])
    func noBodyStatusesHaveNoLengthAndNoBody(status: Int) {
        let response = HTTPResponse(status: status, headers: ["ETag": "\"x\""], body: T.bytes("ignored"))
        #expect(text(HTTPSerializer.serialize(response)) == "HTTP/1.1 \(status) \(response.reason)\r\nETag: \"x\"\r\n\r\n")
    }

    @Test func emptyBodyStillCarriesContentLength() {
        #expect(text(HTTPSerializer.serialize(HTTPResponse(status: 200))) == "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
    }

    @Test func callerFramingHeadersAreReplaced() {
        let response = HTTPResponse(
            status: 200, headers: ["content-length": "99", "Transfer-Encoding": "chunked", "X-A": "1"], body: T.bytes("abc"))
        #expect(text(HTTPSerializer.serialize(response)) == "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nX-A: 1\r\n\r\nabc")
    }

    @Test func lineBreaksInValuesCannotInjectHeaders() {
        let response = HTTPResponse(status: 200, headers: ["X-A": "a\r\nSet-Cookie: evil"])
        let serialized = text(HTTPSerializer.serialize(response))
        #expect(serialized == "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX-A: a  Set-Cookie: evil\r\n\r\n")
    }

    @Test func appendGathersPipelinedResponses() {
        var bytes: [UInt8] = []
        HTTPSerializer.append(HTTPResponse(status: 200, body: T.bytes("a")), to: &bytes)
        HTTPSerializer.append(HTTPResponse(status: 404, body: T.bytes("b")), to: &bytes)
        let events = T.responseEvents([bytes[...]])
        #expect(events.count == 2)
    }

    /// Answers gathered into one buffer are the answers serialized one by one, end to end, and
    /// the buffer grows geometrically: reserving exactly what each answer needs copied the whole
    /// buffer once per answer (1,000 regrowths here).
    @Test func gatheredAnswersEqualSeparateOnesAndRegrowTheBufferRarely() {
        var gathered: [UInt8] = []
        var separate: [UInt8] = []
        var regrowths = 0
        for i in 0..<1000 {
            var response = HTTPResponse(status: i % 7 == 0 ? 404 : 201, body: T.bytes(String(repeating: "x", count: i % 300)))
            response.headers.set(name: "ETag", value: "\"AAAAAAAAB9E=\"")
            response.headers.set(name: "Location", value: "http://127.0.0.1/tables/todoitem/\(i)")
            let capacity = gathered.capacity
            HTTPSerializer.append(response, to: &gathered)
            if gathered.capacity != capacity { regrowths += 1 }
            separate += HTTPSerializer.serialize(response)
        }
        #expect(gathered == separate)
        #expect(regrowths <= 40)
    }

    @Test func continueResponseIsExact() {
        #expect(text(HTTPSerializer.continueResponse) == "HTTP/1.1 100 Continue\r\n\r\n")
    }

    @Test func requestHasHostHeadersAndLength() {
        let post = HTTPRequest(
            method: "POST", target: "/tables/todoitem", headers: ["Accept": "application/json"], body: T.bytes("{}"))
        #expect(text(HTTPSerializer.serialize(post, host: "127.0.0.1:8080")) == "POST /tables/todoitem HTTP/1.1\r\n"
            + "Host: 127.0.0.1:8080\r\nAccept: application/json\r\nContent-Length: 2\r\n\r\n{}")

        let get = HTTPRequest(method: "GET", target: "/", headers: ["Host": "given"])
        #expect(text(HTTPSerializer.serialize(get, host: "ignored")) == "GET / HTTP/1.1\r\nHost: given\r\n\r\n")

        let emptyPatch = HTTPRequest(method: "PATCH", target: "/x")
        #expect(text(HTTPSerializer.serialize(emptyPatch)) == "PATCH /x HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
    }

    @Test func requestRoundTripsThroughTheRequestParser() throws {
        var generator = SplitMix64(seed: 42)
        for method in ["GET", "POST", "PATCH", "DELETE", "PUT"] {
            let body = (0..<Int.random(in: 0...300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let request = HTTPRequest(
                method: method, target: "/tables/t/\(PercentEncoding.encode("id é/\(method)"))?a=1",
                headers: ["Host": "h", "X-ZUMO-APPLICATION": "key", "If-Match": "\"v\""], body: body)
            let bytes = HTTPSerializer.serialize(request)
            let requests = T.requests(T.requestEventsAllSplits(bytes))
            try #require(requests.count == 1)
            var expected = request
            if !body.isEmpty || ["POST", "PATCH", "PUT"].contains(method) {
                expected.headers.add(name: "Content-Length", value: String(body.count))
            }
            #expect(requests[0].request == expected)
        }
    }

    @Test func responseRoundTripsThroughTheResponseParser() throws {
        for status in [200, 201, 204, 304, 400, 412, 500] {
            let response = HTTPResponse(
                status: status, headers: ["Cache-Control": "no-cache", "x-zumo-server-version": "todo-server/1"],
                body: HTTPResponse.statusForbidsBody(status) ? [] : T.bytes("{\"status\":\(status)}"))
            let events = T.responseEventsAllSplits(HTTPSerializer.serialize(response))
            guard case .response(let parsed, true)? = events.first, events.count == 1 else {
                Issue.record("\(status): \(events)")
                continue
            }
            var expected = response
            if !HTTPResponse.statusForbidsBody(status) {
                expected.headers = ["Content-Length": String(response.body.count)]
                for field in response.headers { expected.headers.add(name: field.name, value: field.value) }
            }
            #expect(parsed == expected)
        }
    }
}
