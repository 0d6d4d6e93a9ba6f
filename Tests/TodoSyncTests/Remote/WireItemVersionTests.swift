import Testing
import TodoModel
@testable import TodoSync

/// Versions travel in `ETag` (answers) and `If-Match` (requests) quoted, with `"` and `\` escaped.
@Suite struct WireItemVersionTests {
    @Test(arguments: [
        (#""AAAAAAAAB9E=""#, "AAAAAAAAB9E="),
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

    /// Protocol §10.4: Express's weak ETag is a hash of the body, never the item's version.
    @Test(arguments: [#"W/"AAAAAAAAB9E=""#, #"W/"2d-kAd4ZJ3KCqaGsbJ5nW8N1bx3cGs""#, "  W/\"v1\""])
    func aWeakETagIsNeverAVersion(etag: String) {
        #expect(WireItem.version(fromETag: etag) == nil)
    }

    @Test func aVersionFromETagOnlyOnSuccess() {
        let body: JSONValue = ["id": "x", "text": "mine"]
        let created = TableReply(status: 201, headers: ["ETag": #""v7""#], body: body)
        #expect(created.item?.system.version == "v7")
        // A 409 that echoes the client's body: neither the body nor any ETag gives it a version.
        let conflict = TableReply(status: 409, headers: ["ETag": #""v7""#], body: body)
        #expect(conflict.item != nil)
        #expect(conflict.item?.system.version == nil)
        let withBodyVersion = TableReply(status: 412, headers: ["ETag": #""v7""#], body: ["id": "x", "version": "v9"])
        #expect(withBodyVersion.item?.system.version == "v9")
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
