#if canImport(Glibc)
import Glibc
#endif
import Testing
import TableProtocol
@testable import TodoServer

/// Deadlines (`spec/protocol.md` §3.3; checklist 23) and clients that misbehave. Timeouts are set
/// to 200 ms; the only timing assertions are generous upper bounds (a 5 s receive timeout).
@Suite("HTTP server: timeouts and vanishing clients")
struct HTTPServerTimeoutTests {
    @Test("half a request, then silence: 408 and a close; another client is served meanwhile")
    func halfRequest() throws {
        let harness = try HTTPServerHarness {
            $0.requestTimeout = .milliseconds(200)
            $0.idleTimeout = .seconds(60)
        }
        defer { harness.server.stop() }
        let stalled = try harness.client(receiveTimeout: .seconds(5))
        try stalled.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Len")

        let other = try harness.client()
        #expect(try other.get("/meanwhile").bodyText == "GET /meanwhile")

        let response = try stalled.readResponse()
        #expect(response.status == 408)
        #expect(response.headers["Connection"] == "close")
        #expect(stalled.readUntilClosed() != nil, "closed within the 5 s receive timeout")
        #expect(harness.log.contains { $0.hasPrefix("127.0.0.1 - - 408 ") })
    }

    @Test("a body that stops arriving gets 408 too, counted from the request's first byte")
    func stalledBody() throws {
        let harness = try HTTPServerHarness { $0.requestTimeout = .milliseconds(200) }
        defer { harness.server.stop() }
        let client = try harness.client(receiveTimeout: .seconds(5))
        try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nabc")
        #expect(try client.readResponse().status == 408)
        #expect(client.readUntilClosed() != nil)
    }

    @Test("the request clock starts at each request's first byte, not at the connection's")
    func clockPerRequest() throws {
        let harness = try HTTPServerHarness {
            $0.requestTimeout = .seconds(1)
            $0.idleTimeout = .seconds(60)
        }
        defer { harness.server.stop() }
        let client = try harness.client()
        #expect(try client.get("/first").status == 200)
        usleep(1_300_000)  // idle for longer than the request timeout: allowed
        try client.send("GET /second HTTP/1.1\r\n")
        usleep(100_000)  // the server sees a request in progress
        try client.send("Host: t\r\n\r\n")
        #expect(try client.readResponse().status == 200)
    }

    @Test("an idle keep-alive connection is closed without a response")
    func idleClose() throws {
        let harness = try HTTPServerHarness {
            $0.idleTimeout = .milliseconds(200)
            $0.requestTimeout = .seconds(60)
        }
        defer { harness.server.stop() }
        let client = try harness.client(receiveTimeout: .seconds(5))
        #expect(try client.get("/once").status == 200)
        #expect(client.readUntilClosed() == [], "closed silently within the 5 s receive timeout")
    }

    @Test("a freshly opened connection that never sends anything is closed silently too")
    func silentConnection() throws {
        let harness = try HTTPServerHarness { $0.idleTimeout = .milliseconds(200) }
        defer { harness.server.stop() }
        let client = try harness.client(receiveTimeout: .seconds(5))
        #expect(client.readUntilClosed() == [])
    }

    @Test("clients that vanish mid-response or mid-request leave the server serving")
    func vanishingClients() throws {
        let harness = try HTTPServerHarness()
        defer { harness.server.stop() }
        for round in 0..<4 {
            let client = try harness.client()
            try client.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\n")
            _ = try client.receive(maxBytes: 1000)  // the 8 MiB response has started
            client.close(reset: round % 2 == 0)
        }
        let halfway = try harness.client()
        try halfway.send("POST /echo HTTP/1.1\r\nContent-Length: 100\r\n\r\nonly a little")
        halfway.close(reset: true)
        #expect(try harness.client().get("/fine").bodyText == "GET /fine")
        #expect(harness.log.filter { $0.hasPrefix("127.0.0.1 GET /big 200") }.count == 4)
    }
}
