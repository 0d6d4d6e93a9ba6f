import Testing
import TableProtocol
@testable import TodoServer

/// `--proxy-protocol` on a real socket: the request log names the client from the PROXY header
/// that opens each connection; a connection without one gets 400, a log line saying why, and a
/// close, while the server goes on serving.
@Suite struct ProxyProtocolServerTests {
    static func shapes(_ log: [String]) -> [String] { ClientAddressTests.shapes(log) }

    @Test func theLogNamesTheSourceOfTheProxyHeader() throws {
        let harness = try HTTPServerHarness {
            $0.proxyProtocol = true
            $0.trustedProxies = [ClientAddress.parse("198.51.100.7")!]
        }
        defer { harness.server.stop() }
        // v1, with the first request in the same packet, then a second request.
        let one = try harness.client()
        try one.send("PROXY TCP4 203.0.113.9 127.0.0.1 51234 443\r\nGET /a HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try one.readResponse().bodyText == "GET /a")
        #expect(try one.get("/b").bodyText == "GET /b")
        // v2 over IPv6, on its own before the request.
        let two = try harness.client()
        try two.send(ProxyProtocolHeaderTests.v2IPv6)
        #expect(try two.get("/c").status == 200)
        // UNKNOWN: the proxy's own connection, named by its TCP address.
        let three = try harness.client(from: "127.0.0.3")
        try three.send("PROXY UNKNOWN\r\n")
        #expect(try three.get("/d").status == 200)
        // A source that is a trusted proxy itself: its X-Forwarded-For names the client.
        let four = try harness.client()
        try four.send("PROXY TCP4 198.51.100.7 127.0.0.1 1000 443\r\n")
        #expect(try four.get("/e", headers: "X-Forwarded-For: 192.0.2.44\r\n").status == 200)
        #expect(Self.shapes(harness.log) == [
            "203.0.113.9 GET /a 200", "203.0.113.9 GET /b 200", "2001:db8::5 GET /c 200", "127.0.0.3 GET /d 200",
            "192.0.2.44 GET /e 200",
        ])
    }

    @Test func aConnectionWithoutTheHeaderIsRefusedAndTheServerKeepsServing() throws {
        let harness = try HTTPServerHarness { $0.proxyProtocol = true }
        defer { harness.server.stop() }
        let plain = try harness.client(receiveTimeout: .seconds(5), from: "127.0.0.2")
        try plain.send("GET /x HTTP/1.1\r\nHost: t\r\n\r\n")
        let refused = try plain.readResponse()
        #expect(refused.status == 400)
        #expect(refused.headers["Connection"] == "close")
        #expect(refused.bodyText == "{\"error\":\"the connection must start with a PROXY protocol header (this server runs with "
            + "--proxy-protocol), but it starts neither with \"PROXY \" (version 1) nor with the version 2 signature: connect "
            + "through the proxy, and have it send the header (nginx: proxy_protocol on;)\"}")
        #expect(plain.readUntilClosed() != nil, "closed")

        // A v2 header announcing 64 KiB: refused at its 16th byte, not waited for.
        let huge = try harness.client(receiveTimeout: .seconds(5))
        try huge.send(ProxyProtocolHeader.v2Signature + [0x21, 0x11, 0xFF, 0xFF])
        #expect(try huge.readResponse().status == 400)
        #expect(huge.readUntilClosed() != nil)

        let good = try harness.client()
        try good.send("PROXY TCP4 203.0.113.9 127.0.0.1 51234 443\r\n")
        #expect(try good.get("/after").bodyText == "GET /after")

        let log = harness.log
        #expect(log.count == 3, "\(log)")
        #expect(log.first?.hasPrefix("127.0.0.2 - - 400 ") == true, "\(log)")
        #expect(log.first?.hasSuffix("ms broken PROXY protocol header: it starts neither with \"PROXY \" (version 1) nor with "
            + #"the version 2 signature: "GET /x HTTP/1.1\r\nHost: t\r\n\r\n""#) == true, "\(log)")
        #expect(log.dropFirst().first?.hasSuffix(#"broken PROXY protocol header: it is 65551 bytes long, more than the 4096 accepted: "\r\n\r\n\x00\r\nQUIT\n!\x11\xff\xff""#) == true, "\(log)")
        #expect(Self.shapes(Array(log.suffix(1))) == ["203.0.113.9 GET /after 200"])
    }

    @Test func aHeaderThatStopsHalfwayGets408AtTheHeaderTimeout() throws {
        let harness = try HTTPServerHarness {
            $0.proxyProtocol = true
            $0.headerTimeout = .milliseconds(200)
        }
        defer { harness.server.stop() }
        let client = try harness.client(receiveTimeout: .seconds(5))
        try client.send("PROXY TCP4 203.0.")
        let response = try client.readResponse()
        #expect(response.status == 408)
        #expect(response.bodyText.contains("but it did not arrive completely within 200 ms"), "\(response.bodyText)")
        #expect(client.readUntilClosed() != nil)
        #expect(harness.log.count == 1 && harness.log[0].hasSuffix(#"within 200 ms: "PROXY TCP4 203.0.""#), "\(harness.log)")
    }

    @Test func theOptionTurnsItOn() throws {
        #expect(try ServerOptions.parse(["--proxy-protocol"], environment: [:]).http.proxyProtocol)
        #expect(try !ServerOptions.parse([], environment: [:]).http.proxyProtocol)
        #expect(ServerMain.usage.contains("--proxy-protocol    every connection starts with a PROXY protocol header"))
    }
}
