import Testing
@testable import TableProtocol

/// Header names are compared as strings on their bytes (`equalsIgnoringCase(_: String, _: String)`);
/// the answer must be the generic walk's, which substrings still take.
@Suite struct HTTPNameCaseTests {
    @Test func stringComparisonAgreesWithTheGenericWalk() {
        let names = ["", "a", "A", "Host", "host", "HOST", "Hosu", "Content-Length", "content-length", "CONTENT-LENGTH",
                     "Content-Lengtj", "Transfer-Encoding", "X-ZUMO-INSTALLATION-ID", "x-zumo-installation-id",
                     "ZUMO-API-VERSION", "zumo-api-version", "\u{e9}", "\u{c9}", "caf\u{e9}", "CAF\u{c9}", "@", "`",
                     "[", "{", "Z", "z", "x-zumo-installation-iD", "Origin", "origin", "0rigin"]
        for a in names {
            for b in names {
                #expect(HTTPSyntax.equalsIgnoringCase(a, b) == HTTPSyntax.equalsIgnoringCase(a[...], b[...]), "\(a) \(b)")
            }
        }
        #expect(HTTPSyntax.equalsIgnoringCase("X-ZUMO-VERSION", "x-zumo-version"))
        #expect(!HTTPSyntax.equalsIgnoringCase("@", "`"))  // 0x40 and 0x60 are not letters
    }
}
