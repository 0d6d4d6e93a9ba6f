#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Testing
import TableProtocol
@testable import TodoServer

/// Issue 17 item 1: connections that only wait (idle, or trickling a request head) never keep
/// another client out. Other peers are other loopback addresses (127.0.0.2, ...), which Linux
/// routes to the loopback interface like 127.0.0.1. Nothing is timed: each test waits for the
/// server to reach a state (polling with a generous bound) and then checks who is served.
@Suite("HTTP server: idle and slow connections do not lock clients out")
struct HTTPServerExhaustionTests {
    /// Waits until the server sees `heads` connections receiving a request head (at most 10 s).
    private func waitForHeads(_ harness: HTTPServerHarness, _ heads: Int) {
        for _ in 0..<1_000 where harness.server.connections.counts.head < heads { usleep(10_000) }
        #expect(harness.server.connections.counts.head == heads, "the server should see \(heads) heads arriving")
    }

    /// Sends the start of a request that never ends: a slow-header (slowloris) client.
    private func slowHead(_ harness: HTTPServerHarness, _ n: Int) throws -> RawHTTPClient {
        let client = try harness.client(receiveTimeout: .seconds(5))
        try client.send("GET /slow-\(n) HTTP/1.1\r\nHost: t\r\nX-Slow: ")
        return client
    }

    @Test("100 idle connections from one address, more than the server holds, do not keep another address out")
    func idleFloodFromOneAddress() throws {
        let harness = try HTTPServerHarness { $0.maxConnections = 40 }
        defer { harness.server.stop() }
        var idle: [RawHTTPClient] = []
        for _ in 0..<100 { idle.append(try harness.client(receiveTimeout: .seconds(5))) }
        usleep(1_200_000)  // idle for longer than `yieldAfter` (1 s): their slots may now be taken
        for i in 0..<20 {
            let response = try harness.client(from: "127.0.0.2").get("/good-\(i)")
            #expect(response.status == 200, "\(response.status) \(response.bodyText)")
        }
        // The oldest idle connections gave up their slots; the server never held more than its limit.
        let counts = harness.server.connections.counts
        #expect(counts.idle + counts.head + counts.busy + counts.closing <= 40)
        #expect(idle.first?.readUntilClosed() == [], "the oldest idle connection was closed, without a response")
    }

    @Test("one address holds at most its share: beyond it, busy connections are refused with 503; other addresses are served")
    func perAddressBound() throws {
        let harness = try HTTPServerHarness {
            $0.maxConnections = 40
            $0.maxConnectionsPerAddress = 8
            $0.headerTimeout = .seconds(60)
            $0.requestTimeout = .seconds(60)
            $0.yieldAfter = .seconds(60)
        }
        defer { harness.server.stop() }
        var slow: [RawHTTPClient] = []
        for n in 0..<8 { slow.append(try slowHead(harness, n)) }
        waitForHeads(harness, 8)
        for n in 8..<20 {
            let refused = try slowHead(harness, n)
            let response = try refused.readResponse()
            #expect(response.status == 503)
            #expect(response.headers["Retry-After"] == "1")
            #expect(response.bodyText.contains(
                "too many connections from 127.0.0.1 (at most 8 per address), and none has been idle for 60 s: finish or close some, then retry"),
                "\(response.bodyText)")
        }
        for i in 0..<20 {
            #expect(try harness.client(from: "127.0.0.\(2 + i % 3)").get("/good-\(i)").status == 200)
        }
        // The eight that got in are still being received: one finishes its request and is answered.
        try slow[3].send("1\r\n\r\n")
        #expect(try slow[3].readResponse().bodyText == "GET /slow-3")
    }

    @Test("when the server is full of slow heads, the oldest gives its slot to a new connection")
    func slowHeadsYieldWhenFull() throws {
        let harness = try HTTPServerHarness {
            $0.maxConnections = 10
            $0.maxConnectionsPerAddress = 100
            $0.headerTimeout = .seconds(60)
            $0.requestTimeout = .seconds(60)
            $0.yieldAfter = .milliseconds(100)
        }
        defer { harness.server.stop() }
        var slow: [RawHTTPClient] = []
        for n in 0..<10 { slow.append(try slowHead(harness, n)) }
        waitForHeads(harness, 10)
        usleep(300_000)  // waiting longer than `yieldAfter`: their slots may now be taken
        #expect(try harness.client(from: "127.0.0.2").get("/good").status == 200)
        let counts = harness.server.connections.counts
        #expect(counts.evicted == 1, "one slow head gave up its slot")
        #expect(counts.head == 9)
        withExtendedLifetime(slow) {}
    }

    @Test("connections being answered or receiving a body keep their slots: the new one gets 503, they finish")
    func busyConnectionsKeepTheirSlots() throws {
        let harness = try HTTPServerHarness { $0.maxConnections = 2 }
        defer { harness.server.stop() }
        let first = try harness.client()
        try first.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 6\r\n\r\nabc")
        let second = try harness.client()
        try second.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 6\r\n\r\nuvw")
        for _ in 0..<1_000 where harness.server.connections.counts.busy < 2 { usleep(10_000) }
        let third = try harness.client(receiveTimeout: .seconds(5), from: "127.0.0.2")
        let refused = try third.readResponse()
        #expect(refused.status == 503)
        #expect(refused.bodyText.contains("too many connections (at most 2), and none has been idle for 1 s: retry later"))
        try first.send("def")
        try second.send("xyz")
        #expect(try first.readResponse().bodyText == "abcdef")
        #expect(try second.readResponse().bodyText == "uvwxyz")
    }

    @Test("connections that are answered and only closing give their slots at once, whatever their age")
    func closingConnectionsYieldAtOnce() throws {
        let harness = try HTTPServerHarness {
            $0.maxConnectionsPerAddress = 2
            $0.yieldAfter = .seconds(60)
        }
        defer { harness.server.stop() }
        // Answered with Connection: close; the clients read the answer but do not close, so the
        // server drains them until its linger timeout.
        var answered: [RawHTTPClient] = []
        for n in 0..<2 {
            let client = try harness.client()
            #expect(try client.get("/done-\(n)", headers: "Connection: close\r\n").status == 200)
            answered.append(client)
        }
        // Up to 60 s: under a loaded full run the server thread may be descheduled for seconds.
        for _ in 0..<6_000 where harness.server.connections.counts.closing < 2 { usleep(10_000) }
        try #require(harness.server.connections.counts.closing == 2, "the two answered connections never reached closing")
        for n in 0..<5 {
            #expect(try harness.client().get("/next-\(n)", headers: "Connection: close\r\n").status == 200)
        }
        withExtendedLifetime(answered) {}
    }

    @Test("a slow-header client is cut with 408 after the header timeout, though it keeps sending")
    func slowHeaderIsCut() throws {
        let harness = try HTTPServerHarness {
            $0.headerTimeout = .milliseconds(300)
            $0.requestTimeout = .seconds(60)
        }
        defer { harness.server.stop() }
        let client = try harness.client(receiveTimeout: .seconds(10))
        try client.send("GET /never HTTP/1.1\r\nHost: t\r\n")
        // Trickles a header line every 50 ms for up to 10 s; the server must not wait for the end.
        let fd = client.fd
        let trickled = DispatchSemaphore(value: 0)
        try ServerThread.spawn {
            for n in 0..<200 {
                let line = Array("X-Line-\(n): 1\r\n".utf8)
                if line.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) < 0 { break }
                usleep(50_000)
            }
            trickled.signal()
        }
        let response = try client.readResponse()
        #expect(response.status == 408)
        #expect(response.bodyText.contains("the request's header section did not arrive completely within 300 ms"), "\(response.bodyText)")
        #expect(response.headers["Connection"] == "close")
        trickled.wait()  // the server closed: the trickle failed (it is not left sending into a closed fd)
        #expect(try harness.client().get("/after").status == 200)
    }

    @Test("a new connection that sends nothing is closed after the header timeout, not the idle one")
    func silentNewConnection() throws {
        let harness = try HTTPServerHarness {
            $0.headerTimeout = .milliseconds(200)
            $0.idleTimeout = .seconds(60)
        }
        defer { harness.server.stop() }
        #expect(try harness.client(receiveTimeout: .seconds(5)).readUntilClosed() == [])
    }

    @Test("the header timeout covers the head only: a body may take until the request timeout")
    func slowBodyIsNotCutByTheHeaderTimeout() throws {
        let harness = try HTTPServerHarness {
            $0.headerTimeout = .milliseconds(200)
            $0.requestTimeout = .seconds(30)
        }
        defer { harness.server.stop() }
        let client = try harness.client()
        try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 6\r\n\r\nab")
        usleep(300_000)
        try client.send("cd")
        usleep(300_000)
        try client.send("ef")
        #expect(try client.readResponse().bodyText == "abcdef")
    }
}
