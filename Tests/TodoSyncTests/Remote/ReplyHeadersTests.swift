import Testing
import TableProtocol
@testable import TodoSync

/// What an answer's headers say, read once (`ReplyHeaders`, issue 16 item 7): the byte-level
/// reading gives what the old `split`/`trimmingSpaces` reading gave, row by row.
@Suite struct ReplyHeadersTests {
    @Test(arguments: [
        ("softDelete=false; idType=string", ServerTableSettings(softDelete: false, integerIDs: false)),
        ("softDelete=true;idType=autoIncrement", ServerTableSettings(softDelete: true, integerIDs: true)),
        ("  softDelete = true ;  idType = autoIncrement  ", ServerTableSettings(softDelete: true, integerIDs: true)),
        ("softDelete=maybe", ServerTableSettings(softDelete: nil, integerIDs: nil)),
        ("softDelete=true; softDelete=", ServerTableSettings(softDelete: true, integerIDs: nil)),
        ("=true; softDelete", ServerTableSettings()),
        ("later=1; softDelete=false;;", ServerTableSettings(softDelete: false, integerIDs: nil)),
        ("SoftDelete=false", ServerTableSettings()),
        ("", ServerTableSettings()),
    ])
    func tableSettings(header: String, expected: ServerTableSettings) {
        #expect(ServerTableSettings(header: header) == expected)
    }

    @Test func headerNamesInAnyCaseFirstFieldWins() {
        let headers = HTTPHeaders([("content-TYPE", " Text/HTML ; charset=utf-8"), ("Content-Type", "application/json"),
                                   ("etag", "\"v1\""), ("X-TODO-TABLE-SETTINGS", "softDelete=false"), ("ETag", "\"v2\"")])
        let parsed = ReplyHeaders(headers)
        #expect(parsed.mediaType == "text/html")
        #expect(parsed.etag == "\"v1\"")
        #expect(parsed.tableSettings == ServerTableSettings(softDelete: false))
        let reply = TableReply(status: 200, headers: headers)
        #expect(reply.webPageType == "text/html")
        #expect(ReplyHeaders(HTTPHeaders()) == ReplyHeaders(HTTPHeaders([("Content-Typo", "text/html"), ("ETags", "x")])))
    }

    @Test func changedHeadersAreReadAgain() {
        var reply = TableReply(status: 200, headers: ["Content-Type": "application/json"])
        #expect(reply.webPageType == nil && reply.tableSettings == nil)
        reply.headers["X-Todo-Table-Settings"] = "idType=autoIncrement"
        reply.headers["Content-Type"] = "text/html"
        #expect(reply.tableSettings?.integerIDs == true)
        #expect(reply.webPageType == "text/html")
    }
}
