#if canImport(Glibc)
import Glibc
#endif
import Testing
import TableProtocol
@testable import TodoServer

/// Limits and bad input (`spec/protocol.md` §3.3; checklist 21, 22, 24): the right status, an error
/// body from `errorResponse`, a close, and a server that keeps serving.
@Suite("HTTP server: limits and bad input")
struct HTTPServerLimitTests {
    /// Asserts an error answer built by the harness's `errorResponse`, followed by a close.
    private func expectErrorThenClose(_ client: RawHTTPClient, status: Int,
                                      sourceLocation: SourceLocation = #_sourceLocation) throws {
        let response = try client.readResponse()
        #expect(response.status == status, sourceLocation: sourceLocation)
        #expect(response.bodyText.hasPrefix("{\"error\":"), sourceLocation: sourceLocation)
        #expect(response.headers["Connection"] == "close", sourceLocation: sourceLocation)
        #expect(client.readUntilClosed() != nil, "the server should close", sourceLocation: sourceLocation)
    }

    @Test("a declared Content-Length above the limit gets 413 at once, without the body being sent")
    func declaredTooLarge() throws {
        let harness = try HTTPServerHarness()
        defer { harness.server.stop() }
        let client = try harness.client(receiveTimeout: .seconds(5))
        try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2000000\r\n\r\n")
        try expectErrorThenClose(client, status: 413)
    }

    @Test("a 1,048,577-byte body gets 413; a 1,000,000-byte body is accepted")
    func bodyLimitEdge() throws {
        let harness = try HTTPServerHarness()
        defer { harness.server.stop() }
        let over = try harness.client(receiveTimeout: .seconds(5))
        // The whole body is sent, as a naive client would: the server must drain it, not reset.
        try over.send(Array("POST /length HTTP/1.1\r\nHost: t\r\nContent-Length: 1048577\r\n\r\n".utf8)
                      + [UInt8](repeating: 0x61, count: 1_048_577))
        try expectErrorThenClose(over, status: 413)

        let under = try harness.client()
        try under.send(Array("POST /length HTTP/1.1\r\nHost: t\r\nContent-Length: 1000000\r\n\r\n".utf8)
                       + [UInt8](repeating: 0x61, count: 1_000_000))
        #expect(try under.readResponse().bodyText == "1000000")
    }

    @Test("a client that keeps sending a refused 16 MiB body is drained, not reset, and reads its 413")
    func refusedBodyIsDrained() throws {
        let harness = try HTTPServerHarness()
        defer { harness.server.stop() }
        let client = try harness.client(receiveTimeout: .seconds(5))
        let size = 16 << 20  // more than the socket buffers hold: the server must read while we send
        try client.send(Array("POST /length HTTP/1.1\r\nHost: t\r\nContent-Length: \(size)\r\n\r\n".utf8)
                        + [UInt8](repeating: 0x61, count: size))
        try expectErrorThenClose(client, status: 413)
    }

    @Test("Expect: 100-continue with a declared length above the limit gets 413 instead of 100")
    func expectContinueTooLarge() throws {
        let harness = try HTTPServerHarness()
        defer { harness.server.stop() }
        let client = try harness.client(receiveTimeout: .seconds(5))
        try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5000000\r\nExpect: 100-continue\r\n\r\n")
        let head = try client.readRaw(until: "\r\n\r\n")
        #expect(head.hasPrefix("HTTP/1.1 413 "))
    }

    @Test("a chunked body crossing the limit gets 413")
    func chunkedTooLarge() throws {
        let harness = try HTTPServerHarness { $0.limits = HTTPLimits(maxBodyBytes: 10) }
        defer { harness.server.stop() }
        let client = try harness.client(receiveTimeout: .seconds(5))
        try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n12345678\r\n8\r\n12345678\r\n")
        try expectErrorThenClose(client, status: 413)
    }

    @Test("a header section above 64 KiB gets 431")
    func headersTooLarge() throws {
        let harness = try HTTPServerHarness()
        defer { harness.server.stop() }
        let client = try harness.client(receiveTimeout: .seconds(5))
        try client.send("GET / HTTP/1.1\r\nHost: t\r\nX-Big: \(String(repeating: "b", count: 70_000))\r\n\r\n")
        try expectErrorThenClose(client, status: 431)
    }

    @Test("a request target of 20,000 bytes gets 414")
    func targetTooLong() throws {
        let harness = try HTTPServerHarness()
        defer { harness.server.stop() }
        let client = try harness.client(receiveTimeout: .seconds(5))
        try client.send("GET /\(String(repeating: "t", count: 19_999)) HTTP/1.1\r\nHost: t\r\n\r\n")
        try expectErrorThenClose(client, status: 414)
    }

    @Test("garbage instead of a request line gets 400 and a close; the server keeps serving")
    func garbage() throws {
        let harness = try HTTPServerHarness()
        defer { harness.server.stop() }
        let client = try harness.client(receiveTimeout: .seconds(5))
        try client.send([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03, 0x0D, 0x0A, 0x0D, 0x0A])
        try expectErrorThenClose(client, status: 400)
        #expect(try harness.client().get("/still-here").bodyText == "GET /still-here")
        #expect(harness.log.first?.hasPrefix("127.0.0.1 - - 400 ") == true)
    }

    @Test("a malformed request after good ones: the good ones are answered, then 400 and close")
    func malformedAfterGood() throws {
        let harness = try HTTPServerHarness()
        defer { harness.server.stop() }
        let client = try harness.client(receiveTimeout: .seconds(5))
        try client.send("GET /one HTTP/1.1\r\nHost: t\r\n\r\nGET /two HTTP/1.1\r\nBad Header\r\n\r\n")
        #expect(try client.readResponse().bodyText == "GET /one")
        try expectErrorThenClose(client, status: 400)
    }

    @Test("random bytes on many connections never bring the server down")
    func randomInput() throws {
        let harness = try HTTPServerHarness {
            $0.requestTimeout = .milliseconds(200)
            $0.idleTimeout = .milliseconds(200)
        }
        defer { harness.server.stop() }
        var generator = HTTPTestRandom(seed: 0x5EED)
        let prefixes = ["", "GET / HTTP/1.1\r\n", "POST /echo HTTP/1.1\r\nContent-Length: 4\r\n\r\n", "GET /"]
        for _ in 0..<60 {
            let client = try harness.client(receiveTimeout: .seconds(5))
            let noise = (0..<Int.random(in: 1...400, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            try? client.send(Array(prefixes.randomElement(using: &generator)!.utf8) + noise)
            if Bool.random(using: &generator) { client.close(reset: Bool.random(using: &generator)) }
            else { _ = client.readUntilClosed() }
        }
        #expect(try harness.client().get("/alive").bodyText == "GET /alive")
    }

    @Test("a connection beyond maxConnections takes the slot of an idle one, which is closed silently")
    func tooManyConnections() throws {
        let harness = try HTTPServerHarness {
            $0.maxConnections = 1
            $0.yieldAfter = .zero
        }
        defer { harness.server.stop() }
        let first = try harness.client(receiveTimeout: .seconds(5))
        #expect(try first.get("/first").status == 200)  // admitted, served, now idle
        for _ in 0..<1_000 where harness.server.connections.counts.idle < 1 { usleep(10_000) }
        let second = try harness.client()
        #expect(try second.get("/second").status == 200)
        #expect(first.readUntilClosed() == [], "the idle connection gave up its slot")
        // A connection with a request under way keeps its slot: the next one gets 503 and a close.
        // First the server must be done with /second (idle again): its answer reaches the client
        // before the connection leaves `busy`, and a busy count from /second, seen after /third
        // was sent, would let the third connection in while the second is only idle or in its head.
        for _ in 0..<1_000 where harness.server.connections.counts.idle < 1 { usleep(10_000) }
        #expect(harness.server.connections.counts.busy == 0)
        try second.send("GET /third HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\n")
        for _ in 0..<1_000 where harness.server.connections.counts.busy < 1 { usleep(10_000) }
        let third = try harness.client(receiveTimeout: .seconds(5))
        try expectErrorThenClose(third, status: 503)
        try second.send("ok")
        #expect(try second.readResponse().status == 200)
    }
}

/// SplitMix64: a fixed seed gives the same bytes on every run.
struct HTTPTestRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
