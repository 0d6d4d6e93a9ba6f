import Testing
@testable import TodoSync

/// Versions travel in `ETag` (answers) and `If-Match` (requests) quoted, with `"` and `\` escaped.
@Suite struct WireItemVersionTests {
    @Test(arguments: [
        (#""AAAAAAAAB9E=""#, "AAAAAAAAB9E="),
        (#"W/"AAAAAAAAB9E=""#, "AAAAAAAAB9E="),
        (#"  "v1"  "#, "v1"),
        (#""a\"b""#, #"a"b"#),
        (#""a\\b""#, #"a\b"#),
        ("plain", "plain"),
    ])
    func aVersionComesOutOfItsETag(etag: String, version: String) {
        #expect(WireItem.version(fromETag: etag) == version)
    }

    @Test func noETagIsNoVersion() {
        #expect(WireItem.version(fromETag: nil) == nil)
        #expect(WireItem.version(fromETag: "  ") == nil)
    }

    @Test(arguments: ["AAAAAAAAB9E=", #"a"b"#, #"a\b"#, #"\"#, ""])
    func ifMatchQuotesAndRoundTrips(version: String) {
        let header = WireItem.ifMatch(version)
        #expect(header.hasPrefix("\"") && header.hasSuffix("\""))
        #expect(WireItem.version(fromETag: header) == version || version.isEmpty)
    }

    @Test func ifMatchEscapesQuotesAndBackslashes() {
        #expect(WireItem.ifMatch("AAAAAAAAB9E=") == #""AAAAAAAAB9E=""#)
        #expect(WireItem.ifMatch(#"a"b\c"#) == #""a\"b\\c""#)
    }
}
