import Testing
@testable import TodoServer

/// Issue 20 item 4: behind a reverse proxy the request log names the client from
/// `X-Forwarded-For`, but only for connections from a proxy named with `--trusted-proxy`.
@Suite struct ClientAddressTests {
    static let proxy = ClientAddress.parse("127.0.0.2")!

    static func shapes(_ log: [String]) -> [String] {
        log.map { $0.split(separator: " ").prefix(4).joined(separator: " ") }
    }

    @Test func theLogNamesTheForwardedClientOnlyForATrustedProxy() throws {
        let harness = try HTTPServerHarness { $0.trustedProxies = [Self.proxy] }
        defer { harness.server.stop() }
        let viaProxy = try harness.client(from: "127.0.0.2")
        _ = try viaProxy.get("/a", headers: "X-Forwarded-For: 203.0.113.9\r\n")
        _ = try viaProxy.get("/b", headers: "X-Forwarded-For: 198.51.100.1, 203.0.113.9, 127.0.0.2\r\n")
        _ = try viaProxy.get("/c")
        _ = try viaProxy.get("/d", headers: "X-Forwarded-For: not-an-address\r\n")
        let direct = try harness.client(from: "127.0.0.1")
        _ = try direct.get("/e", headers: "X-Forwarded-For: 203.0.113.9\r\n")
        #expect(Self.shapes(harness.log) == [
            "203.0.113.9 GET /a 200",
            "203.0.113.9 GET /b 200",  // the rightmost hop that is not a trusted proxy
            "127.0.0.2 GET /c 200",
            "- GET /d 200",  // never text a client chose
            "127.0.0.1 GET /e 200",  // not a trusted proxy: its header is ignored
        ])
    }

    @Test func addressesParseAndPrint() {
        #expect(ClientAddress.parse("127.0.0.1") == 0x7F00_0001)
        #expect(ClientAddress.text(0xC000_0201) == "192.0.2.1")
        for bad in ["", "1.2.3", "1.2.3.4.5", "256.1.1.1", "a.b.c.d", "1..2.3", "01234.1.1.1"] {
            #expect(ClientAddress.parse(bad) == nil, "\(bad)")
        }
        #expect(ClientAddress.of(forwardedFor: "2001:db8::1", peer: Self.proxy, trusted: [Self.proxy]) == "2001:db8::1")
        #expect(ClientAddress.of(forwardedFor: "127.0.0.2", peer: Self.proxy, trusted: [Self.proxy]) == "127.0.0.2")
    }

    @Test func theOptionTakesIPv4AddressesAndRefusesAnythingElse() throws {
        let options = try ServerOptions.parse(["--trusted-proxy", "127.0.0.1,10.0.0.2"], environment: [:])
        #expect(options.http.trustedProxies == [0x7F00_0001, 0x0A00_0002])
        let name = #expect(throws: ServerOptions.Problem.self) { try ServerOptions.parse(["--trusted-proxy", "localhost"], environment: [:]) }
        #expect(name?.message == "'--trusted-proxy localhost' must be IPv4 addresses separated by commas, e.g. 127.0.0.1")
        let error = #expect(throws: ServerOptions.Problem.self) {
            try ServerOptions.parse(["--trusted-proxy", "10.0.0.0/8"], environment: [:])
        }
        #expect(error?.message == "'--trusted-proxy 10.0.0.0/8' must be IPv4 addresses separated by commas, e.g. 127.0.0.1")
    }
}
