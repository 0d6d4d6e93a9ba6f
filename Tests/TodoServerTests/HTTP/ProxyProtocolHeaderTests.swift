import Testing
import TodoTestSupport
@testable import TodoServer

/// The PROXY protocol header parser (`--proxy-protocol`): versions 1 and 2, headers split over
/// any number of reads, and bad or oversized input refused without crashing or waiting forever.
@Suite struct ProxyProtocolHeaderTests {
    typealias Outcome = ProxyProtocolHeader.Outcome

    static func parse(_ bytes: [UInt8]) -> Outcome { bytes.withUnsafeBytes { ProxyProtocolHeader.parse($0) } }
    static func parse(_ text: String) -> Outcome { parse(Array(text.utf8)) }

    static let v1 = "PROXY TCP4 203.0.113.9 127.0.0.1 51234 443\r\n"
    /// v2, PROXY, TCP over IPv4: 198.51.100.7:1000 -> 127.0.0.1:443, then one TLV (type 0x01, ALPN "h2").
    static let v2IPv4: [UInt8] = ProxyProtocolHeader.v2Signature + [0x21, 0x11, 0x00, 0x11]
        + [198, 51, 100, 7, 127, 0, 0, 1, 0x03, 0xE8, 0x01, 0xBB] + [0x01, 0x00, 0x02, 0x68, 0x32]
    /// v2, PROXY, TCP over IPv6: 2001:db8::5 -> ::1.
    static let v2IPv6: [UInt8] = ProxyProtocolHeader.v2Signature + [0x21, 0x21, 0x00, 0x24]
        + [0x20, 0x01, 0x0D, 0xB8] + [UInt8](repeating: 0, count: 11) + [5] + [UInt8](repeating: 0, count: 15) + [1]
        + [0x03, 0xE8, 0x01, 0xBB]
    /// v2, LOCAL (the proxy's own health check), no addresses.
    static let v2Local: [UInt8] = ProxyProtocolHeader.v2Signature + [0x20, 0x00, 0x00, 0x00]

    @Test func validHeadersNameTheirSourceAndTheirLength() {
        #expect(Self.parse(Self.v1 + "GET / HTTP/1.1\r\n") == .header(length: Self.v1.utf8.count,
                                                                       source: PeerAddress(text: "203.0.113.9", ipv4: 0xCB00_7109)))
        #expect(Self.parse("PROXY TCP6 2001:0db8:0000:0000:0000:0000:0000:0001 ::1 51234 443\r\n")
            == .header(length: 66, source: PeerAddress(text: "2001:db8::1", ipv4: nil)), "canonical IPv6 text")
        #expect(Self.parse("PROXY UNKNOWN\r\n") == .header(length: 15, source: nil))
        #expect(Self.parse("PROXY UNKNOWN ffff:f...f:ffff 65535 65535\r\n") == .header(length: 43, source: nil),
                "the rest of an UNKNOWN line is ignored")
        #expect(Self.parse(Self.v2IPv4 + Array("GET".utf8)) == .header(length: 33, source: PeerAddress(ipv4: 0xC633_6407)))
        #expect(Self.parse(Self.v2IPv6) == .header(length: 52, source: PeerAddress(text: "2001:db8::5", ipv4: nil)))
        #expect(Self.parse(Self.v2Local) == .header(length: 16, source: nil))
        let unspecified = ProxyProtocolHeader.v2Signature + [0x21, 0x00, 0x00, 0x00]
        #expect(Self.parse(unspecified) == .header(length: 16, source: nil))
    }

    /// A header arrives in any number of reads: every prefix of it asks for more, and the whole
    /// of it (with or without bytes after it) gives the same answer.
    @Test func everyPrefixOfAHeaderAsksForMore() {
        for header in [Array(Self.v1.utf8), Array("PROXY UNKNOWN\r\n".utf8), Self.v2IPv4, Self.v2IPv6, Self.v2Local] {
            for cut in 0..<header.count {
                #expect(Self.parse(Array(header[..<cut])) == .needMore, "\(header.prefix(cut))")
            }
            guard case .header(let length, _) = Self.parse(header) else { Issue.record("\(header)"); continue }
            #expect(length == header.count)
        }
    }

    @Test func badInputIsRefusedWithItsReason() {
        let cases: [(String, String)] = [
            ("GET / HTTP/1.1\r\n", "it starts neither with \"PROXY \" (version 1) nor with the version 2 signature"),
            ("G", "it starts neither with \"PROXY \" (version 1) nor with the version 2 signature"),
            ("proxy TCP4", "it starts neither with \"PROXY \" (version 1) nor with the version 2 signature"),
            ("PROXY TCP4 1.2.3.4 5.6.7.8 1 2\n", "its version 1 line holds a byte that is not printable ASCII"),
            ("PROXY TCP4 1.2.3.4 5.6.7.8 1 2\rX", "its version 1 line does not end with CRLF"),
            ("PROXY TCP5 1.2.3.4 5.6.7.8 1 2\r\n", "its version 1 line names no protocol it knows (TCP4, TCP6 or UNKNOWN)"),
            ("PROXY \r\n", "its version 1 line names no protocol it knows (TCP4, TCP6 or UNKNOWN)"),
            ("PROXY TCP4 1.2.3.4 5.6.7.8 1\r\n",
             "its version 1 line must be: PROXY TCP4 SOURCE DESTINATION SOURCE-PORT DESTINATION-PORT"),
            ("PROXY TCP4 1.2.3.4  5.6.7.8 1 2\r\n",
             "its version 1 line must be: PROXY TCP4 SOURCE DESTINATION SOURCE-PORT DESTINATION-PORT"),
            ("PROXY TCP4 1.2.3.256 5.6.7.8 1 2\r\n", "its version 1 line has an address that is not IPv4"),
            ("PROXY TCP4 ::1 ::1 1 2\r\n", "its version 1 line has an address that is not IPv4"),
            ("PROXY TCP6 1.2.3.4 ::1 1 2\r\n", "its version 1 line has an address that is not IPv6"),
            ("PROXY TCP4 1.2.3.4 5.6.7.8 65536 2\r\n", "its version 1 line has a port that is not 0 to 65535"),
            ("PROXY TCP4 1.2.3.4 5.6.7.8 -1 2\r\n", "its version 1 line has a port that is not 0 to 65535"),
            ("PROXY TCP4 1.2.3.4 5.6.7.8 1 \r\n", "its version 1 line has a port that is not 0 to 65535"),
            ("PROXY UNKNOWN" + String(repeating: " x", count: 60), "its version 1 line is longer than 107 bytes"),
        ]
        for (input, reason) in cases {
            #expect(Self.parse(input) == .invalid(reason), "\(input)")
        }
        let signature = ProxyProtocolHeader.v2Signature
        #expect(Self.parse(signature + [0x11, 0x11, 0, 12]) == .invalid("its version is 1, not 2"))
        #expect(Self.parse(signature + [0x22, 0x11, 0, 12]) == .invalid("its version 2 command is 2, neither LOCAL (0) nor PROXY (1)"))
        #expect(Self.parse(signature + [0x21, 0x41, 0, 12]) == .invalid("its version 2 address family or transport is unknown"))
        #expect(Self.parse(signature + [0x21, 0x13, 0, 12]) == .invalid("its version 2 address family or transport is unknown"))
        #expect(Self.parse(signature + [0x21, 0x11, 0, 4, 1, 2, 3, 4]) == .invalid("its version 2 IPv4 addresses are cut short"))
        #expect(Self.parse(signature + [0x21, 0x21, 0, 12] + [UInt8](repeating: 0, count: 12))
            == .invalid("its version 2 IPv6 addresses are cut short"))
        #expect(Self.parse(Array(signature.prefix(5)) + [0x41]) == .invalid(
            "it starts neither with \"PROXY \" (version 1) nor with the version 2 signature"))
    }

    /// Oversized headers are refused once their size is known, before their bytes are waited for.
    @Test func oversizedHeadersAreRefusedAtOnce() {
        let longLine = "PROXY TCP4 " + String(repeating: "1", count: 94)  // 105 bytes: CRLF would make 107
        #expect(Self.parse(longLine) == .needMore)
        #expect(Self.parse(longLine + "\r") == .needMore)
        #expect(Self.parse(longLine + "1") == .invalid("its version 1 line is longer than 107 bytes"))
        let huge = ProxyProtocolHeader.v2Signature + [0x21, 0x11, 0xFF, 0xFF]
        #expect(Self.parse(huge) == .invalid("it is 65551 bytes long, more than the 4096 accepted"))
        let largest = ProxyProtocolHeader.v2Signature + [0x21, 0x11, 0x0F, 0xF0]
        #expect(Self.parse(largest) == .needMore)
        #expect(Self.parse(largest + [UInt8](repeating: 7, count: 4080)) == .header(length: 4096, source: PeerAddress(ipv4: 0x0707_0707)))
    }

    /// Thousands of mutants of good and bad headers: the parser never crashes, never claims more
    /// bytes than it was given, and gives every prefix of a header `needMore` (so a header split
    /// across reads at any byte is read the same).
    @Test func mutantsNeverCrashAndPrefixesAgree() {
        let corpus = [Array(Self.v1.utf8), Array("PROXY TCP6 2001:db8::1 ::1 1 2\r\n".utf8), Array("PROXY UNKNOWN\r\n".utf8),
                      Self.v2IPv4, Self.v2IPv6, Self.v2Local, Array("GET / HTTP/1.1\r\n".utf8)]
        let dictionary = ["PROXY ", "TCP4 ", "TCP6 ", "UNKNOWN", "\r\n", " ", "::", ".255", "65535", "\u{0}"]
        var headers = 0
        for input in FuzzCorpus.mutants(of: corpus, count: 3000, seed: 0x9B0C, dictionary: dictionary) {
            switch Self.parse(input) {
            case .header(let length, _):
                headers += 1
                #expect(length <= input.count, "\(input)")
                for cut in stride(from: 0, to: length, by: 1) {
                    #expect(Self.parse(Array(input[..<cut])) == .needMore, "\(input) cut at \(cut)")
                }
            case .invalid(let reason):
                #expect(!reason.isEmpty)
            case .needMore:
                #expect(input.count < ProxyProtocolHeader.v2MaxBytes, "\(input)")
            }
        }
        #expect(headers > 100, "the mutants reach valid headers too")
    }

    @Test func theLogExcerptEscapesWhatCouldForgeALine() {
        let bytes: [UInt8] = Array("GET /\r\n\"x\\".utf8) + [0, 0xFF]
        #expect(bytes.withUnsafeBytes { ProxyProtocolHeader.excerpt($0) } == #""GET /\r\n\"x\\\x00\xff""#)
        let long = [UInt8](repeating: UInt8(ascii: "a"), count: 60)
        #expect(long.withUnsafeBytes { ProxyProtocolHeader.excerpt($0) } == "\"" + String(repeating: "a", count: 48) + "\"…")
    }
}
