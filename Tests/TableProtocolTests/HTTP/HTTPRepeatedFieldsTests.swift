import Testing
import TodoBasics
@testable import TableProtocol

/// Pipelined requests reuse the strings of the previous request's equal fields
/// (`HTTPSyntax.string(_:reusing:)`); each request's fields must stay those it would get parsed
/// alone: changed values, fields moved or added, invalid UTF-8 (repaired each time), case changes.
@Suite struct HTTPRepeatedFieldsTests {
    typealias T = HTTPTestSupport

    private static let heads: [[UInt8]] = [
        T.bytes("Host: 127.0.0.1:8080\r\nUser-Agent: todo/0.1.0\r\nX-ZUMO-INSTALLATION-ID: 6f372465-398e-479d\r\n"),
        T.bytes("Host: 127.0.0.1:8080\r\nUser-Agent: todo/0.1.0\r\nX-ZUMO-INSTALLATION-ID: 6f372465-398e-479d\r\n"),
        T.bytes("Host: 127.0.0.1:8080\r\nUser-Agent: todo/0.1.1\r\nx-zumo-installation-id: 6f372465-398e-479d\r\n"),
        T.bytes("User-Agent: todo/0.1.1\r\nHost: 127.0.0.1:8080\r\nX-Extra: caf\u{e9}\r\nX-Another: 1\r\n"),
        T.bytes("User-Agent: todo/0.1.1\r\nHost: 127.0.0.1:8080\r\nX-Extra: caf") + [0xE9, 0xFF] + T.bytes("\r\n"),
        T.bytes("User-Agent: todo/0.1.1\r\nHost: 127.0.0.1:8080\r\nX-Extra: caf") + [0xE9, 0xFF] + T.bytes("\r\n"),
        T.bytes("User-Agent: todo/0.1.1\r\nHost: 127.0.0.1:8080\r\nX-Extra: caf\u{FFFD}\u{FFFD}\r\n"),
        T.bytes("User-Agent: \r\nHost: 127.0.0.1:8080\r\n"),
        T.bytes("User-Agent: a-value-longer-than-eight-bytes-to-compare\r\n"),
        T.bytes("User-Agent: a-value-longer-than-eight-bytes-to-comparf\r\n"),
    ]

    private static func request(_ head: [UInt8], _ i: Int) -> [UInt8] {
        T.bytes("POST /tables/todoitem HTTP/1.1\r\n") + head + T.bytes("Content-Length: 1\r\n\r\n\(i % 10)")
    }

    /// Request lines too: the same method and target again, then others, must parse as alone.
    @Test func pipelinedRequestLinesEqualThoseOfEachRequestAlone() throws {
        let lines = ["POST /tables/todoitem", "POST /tables/todoitem", "GET /tables/todoitem", "GET /tables/todoitem?$top=1",
                     "GET /tables/todoitem?$top=2", "PATCH /tables/todoitem/a", "PATCH /tables/todoitem/b", "POST /tables/todoitem"]
        let requests = lines.map { T.bytes("\($0) HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n") }
        let pipelined = T.requests(T.requestEvents(requests.flatMap { $0 }))
        try #require(pipelined.count == lines.count)
        for (i, request) in requests.enumerated() {
            let alone = T.requests(T.requestEvents(request))
            #expect(pipelined[i].request.method == alone[0].request.method)
            #expect(Array(pipelined[i].request.target.utf8) == Array(alone[0].request.target.utf8))
            #expect("\(pipelined[i].request.method) \(pipelined[i].request.target)" == lines[i])
        }
    }

    @Test func pipelinedFieldsEqualThoseOfEachRequestAlone() throws {
        let input = Self.heads.enumerated().flatMap { Self.request($1, $0) }
        let pipelined = T.requests(T.requestEvents(input))
        try #require(pipelined.count == Self.heads.count)
        for (i, head) in Self.heads.enumerated() {
            let alone = T.requests(T.requestEvents(Self.request(head, i)))
            try #require(alone.count == 1)
            #expect(pipelined[i].request.headers.fields == alone[0].request.headers.fields, "request \(i)")
            for (a, b) in zip(pipelined[i].request.headers.fields, alone[0].request.headers.fields) {
                #expect(Array(a.name.utf8) == Array(b.name.utf8) && Array(a.value.utf8) == Array(b.value.utf8))
            }
        }
        #expect(pipelined[4].request.headers["X-Extra"] == "caf\u{FFFD}\u{FFFD}")  // 0xE9 starts a sequence 0xFF breaks
    }
}
