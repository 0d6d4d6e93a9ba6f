import Synchronization
import Testing
import TableProtocol
@testable import TodoServer

/// Requests and responses over real sockets: framing, keep-alive, pipelining, concurrency, logging.
@Suite("HTTP server: exchanges")
struct HTTPServerExchangeTests {
    @Test("start on port 0 returns the real port, which accepts connections")
    func portZero() throws {
        let harness = try HTTPServerHarness()
        defer { harness.server.stop() }
        #expect(harness.port > 0 && harness.port <= 65_535)
        #expect(RawHTTPClient.canConnect(port: harness.port))
    }

    @Test("a simple request gets its response")
    func simpleRequest() throws {
        let harness = try HTTPServerHarness()
        defer { harness.server.stop() }
        let client = try harness.client()
        let response = try client.get("/hello?x=1")
        #expect(response.status == 200)
        #expect(response.bodyText == "GET /hello?x=1")
        #expect(response.headers["Content-Length"] == String(response.body.count))
        #expect(response.headers["Connection"] == nil)
    }

    @Test("one connection carries 100 requests")
    func keepAlive() throws {
        let harness = try HTTPServerHarness()
        defer { harness.server.stop() }
        let client = try harness.client()
        for index in 0..<100 {
            let response = try client.get("/r\(index)")
            #expect(response.bodyText == "GET /r\(index)")
        }
        #expect(harness.log.count == 100)
    }

    @Test("10 pipelined requests in one write get 10 responses in order")
    func pipelining() throws {
        let harness = try HTTPServerHarness()
        defer { harness.server.stop() }
        let client = try harness.client()
        var batch = ""
        for index in 0..<10 {
            batch += index == 4
                ? "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nbody4"
                : "GET /p\(index) HTTP/1.1\r\nHost: t\r\n\r\n"
        }
        try client.send(batch)
        for index in 0..<10 {
            let response = try client.readResponse()
            #expect(response.bodyText == (index == 4 ? "body4" : "GET /p\(index)"))
        }
    }

    @Test("32 concurrent clients doing 50 requests each are all answered correctly")
    func concurrentClients() throws {
        let harness = try HTTPServerHarness()
        defer { harness.server.stop() }
        let correct = Atomic<Int>(0)
        let port = harness.port
        try onHTTPTestThreads(32) { clientIndex in
            guard let client = try? RawHTTPClient(port: port) else { return }
            for requestIndex in 0..<50 {
                let target = "/c\(clientIndex)/r\(requestIndex)"
                guard let response = try? client.get(target) else { return }
                if response.status == 200 && response.bodyText == "GET \(target)" {
                    correct.add(1, ordering: .relaxed)
                }
            }
        }
        #expect(correct.load(ordering: .relaxed) == 32 * 50)
    }

    @Test("a Content-Length body is delivered to the application whole")
    func contentLengthBody() throws {
        let harness = try HTTPServerHarness()
        defer { harness.server.stop() }
        let client = try harness.client()
        let body = String(repeating: "0123456789", count: 10_000)
        try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.headers["X-Method"] == "POST")
        #expect(response.bodyText == body)
    }

    @Test("a chunked body arrives de-chunked")
    func chunkedBody() throws {
        let harness = try HTTPServerHarness()
        defer { harness.server.stop() }
        let client = try harness.client()
        try client.send("PATCH /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")
        try client.send("6;ext=1\r\n world\r\n0\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.bodyText == "hello world")
        #expect(response.headers["X-Body-Length"] == "11")
    }

    @Test("Expect: 100-continue within the limit gets 100 Continue, then the response")
    func expectContinue() throws {
        let harness = try HTTPServerHarness()
        defer { harness.server.stop() }
        let client = try harness.client()
        try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n")
        #expect(try client.readRaw(until: "\r\n\r\n") == "HTTP/1.1 100 Continue\r\n\r\n")
        try client.send("abc")
        #expect(try client.readResponse().bodyText == "abc")
    }

    @Test("HEAD gets the headers, with the Content-Length of the body it would have had, and no body")
    func head() throws {
        let harness = try HTTPServerHarness()
        defer { harness.server.stop() }
        let client = try harness.client()
        try client.send("HEAD /thing HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try client.readResponse(method: "HEAD")
        #expect(response.headers["Content-Length"] == String("HEAD /thing".utf8.count))
        #expect(response.body.isEmpty)
        // The connection is still in step: the next response is not polluted by a stray body.
        #expect(try client.get("/after").bodyText == "GET /after")
    }

    @Test("Connection: close from the client: the response says close, then the server closes")
    func connectionClose() throws {
        let harness = try HTTPServerHarness()
        defer { harness.server.stop() }
        let client = try harness.client(receiveTimeout: .seconds(5))
        let response = try client.get("/bye", headers: "Connection: close\r\n")
        #expect(response.bodyText == "GET /bye")
        #expect(response.headers["Connection"] == "close")
        #expect(client.readUntilClosed() == [])
    }

    @Test("HTTP/1.0 closes by default and stays open with keep-alive")
    func http10() throws {
        let harness = try HTTPServerHarness()
        defer { harness.server.stop() }
        let kept = try harness.client(receiveTimeout: .seconds(5))
        try kept.send("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        #expect(try kept.readResponse().headers["Connection"] == "keep-alive")
        try kept.send("GET /b HTTP/1.0\r\n\r\n")
        #expect(try kept.readResponse().bodyText == "GET /b")
        #expect(kept.readUntilClosed() == [])
    }

    @Test("the log gets one line per request: client, method, path, status, milliseconds")
    func logLines() throws {
        let harness = try HTTPServerHarness()
        defer { harness.server.stop() }
        let client = try harness.client()
        _ = try client.get("/tables/x?$top=1")
        _ = try client.get("/tables/y")
        try client.send("POST /echo HTTP/1.1\r\nContent-Length: 1\r\n\r\nz")
        _ = try client.readResponse()
        let lines = harness.log
        #expect(lines.count == 3)
        let shapes = lines.map { line -> String in
            let parts = line.split(separator: " ")
            guard parts.count == 5, parts[4].hasSuffix("ms"), Double(parts[4].dropLast(2)) != nil else { return line }
            return parts[0...3].joined(separator: " ")
        }
        #expect(shapes == ["127.0.0.1 GET /tables/x 200", "127.0.0.1 GET /tables/y 200", "127.0.0.1 POST /echo 200"])
    }

    @Test("log durations read as milliseconds with one decimal")
    func logFormatting() {
        #expect(HTTPRequestLog.milliseconds(.microseconds(400)) == "0.4")
        #expect(HTTPRequestLog.milliseconds(.microseconds(1_250)) == "1.3")
        #expect(HTTPRequestLog.milliseconds(.seconds(2)) == "2000.0")
        #expect(HTTPRequestLog.line(client: "10.0.0.1", method: "GET", target: "/a?b=c", status: 404, elapsed: .zero)
            == "10.0.0.1 GET /a 404 0.0ms")
        #expect(HTTPRequestLog.line(client: "10.0.0.1", method: nil, target: nil, status: 400, elapsed: .zero) == "10.0.0.1 - - 400 0.0ms")
    }
}
