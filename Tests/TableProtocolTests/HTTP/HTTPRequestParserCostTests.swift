import Testing
@testable import TableProtocol

@Suite("HTTP request parser: cost of tiny reads")
struct HTTPRequestParserCostTests {
    /// A head near the 64 KiB limit arriving one byte per read is parsed correctly. (Speed is not
    /// asserted here — the project has no timed tests — but a parser that rescanned the buffer on
    /// every read would need about 2·10⁹ byte checks and stall this test visibly.)
    @Test func longLinesFedByteByByteAreNotRescanned() {
        let input = Array("GET / HTTP/1.1\r\nX-Big: ".utf8) + [UInt8](repeating: 0x61, count: 65_000)
            + Array("\r\n\r\nPOST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
            + Array("FFFF;".utf8) + [UInt8](repeating: 0x65, count: 4_000) + Array("\r\n".utf8)
        var parser = HTTPRequestParser()
        var requests = 0
        for byte in input {
            parser.feed(CollectionOfOne(byte))
            while let event = parser.next() {
                if case .request = event { requests += 1 }
            }
        }
        #expect(requests == 1)
        #expect(parser.isRequestInProgress)
    }
}
