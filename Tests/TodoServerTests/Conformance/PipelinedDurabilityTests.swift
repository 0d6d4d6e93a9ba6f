import Glibc
import Testing
import TableProtocol
import TodoBasics
import TodoModel
@testable import TodoServer

/// Pipelined requests answered together share their durability waits (`DurabilityTicket`), and
/// still: every answer waits for what it reports or shows to be durable, answers keep the order of
/// the requests, and a write that did not become durable is never answered as a success.
@Suite struct PipelinedDurabilityTests {
    @Test func fiftyPipelinedInsertsAreAnsweredInOrderAfterFarFewerFsyncs() throws {
        let h = try TableServerHarness()
        let commit = h.storage.handle("todoitem")!.commit
        let syncs = h.storage.syncCount
        let client = try RawHTTPClient(port: h.port)
        let count = 50
        try client.send((0..<count).map { Self.request("POST", "/tables/todoitem", body: #"{"id":"p\#($0)","text":"t\#($0)"}"#) }
            .joined())
        for i in 0..<count {
            let response = try client.readResponse(method: "POST")
            #expect(response.status == 201)
            #expect((try? JSONValue.parse(response.body))?["id"] == .string("p\(i)"))
        }
        // Every answer was written after its insert was durable: nothing appended is left to sync.
        #expect(commit.positions.durable == commit.positions.appended)
        // One socket read is one group, with one wait; the 50 requests arrive in one or a few reads.
        let used = h.storage.syncCount - syncs
        #expect(used >= 1 && used <= count / 5, "\(used) fsyncs for \(count) inserts")

        #expect(try h.storage.rowCount("todoitem", includeDeleted: false) == count)
        let page = try h.send("GET", "/tables/todoitem?$orderby=id&$top=100").array
        #expect(Set(page.ids) == Set((0..<count).map { "p\($0)" }))
    }

    @Test func aPipelinedInsertUpdateReadDeleteOfOneItemKeepsItsOrder() throws {
        let h = try TableServerHarness()
        let client = try RawHTTPClient(port: h.port)
        try client.send(
            Self.request("POST", "/tables/todoitem", body: #"{"id":"x","text":"first"}"#)
                + Self.request("PATCH", "/tables/todoitem/x", headers: "If-Match: *\r\n", body: #"{"text":"second"}"#)
                + Self.request("GET", "/tables/todoitem/x")
                + Self.request("DELETE", "/tables/todoitem/x")
                + Self.request("GET", "/tables/todoitem/x"))
        var replies: [(status: Int, json: JSONValue?)] = []
        for method in ["POST", "PATCH", "GET", "DELETE", "GET"] {
            let response = try client.readResponse(method: method)
            replies.append((response.status, try? JSONValue.parse(response.body)))
        }
        #expect(replies.map(\.status) == [201, 200, 200, 200, 404])
        #expect(replies[0].json?["text"] == .string("first"))
        #expect(replies[1].json?["text"] == .string("second"))
        #expect(replies[2].json?["text"] == .string("second"))
        #expect(replies[3].json?["deleted"] == .bool(true))
        let versions = replies[0...3].compactMap { $0.json?["version"]?.stringValue }
        #expect(Set(versions).count == 3, "insert, update and delete each make a version: \(versions)")
        #expect(try h.storage.row("todoitem", id: "x")?.deleted == true)
    }

    /// Invariants 3 and 8: the group's fsync fails after its two inserts were appended. Both are
    /// answered 503, as a write whose own wait fails is, in their generation's form, even though
    /// the answers in between pass the flush threshold and go out first; an insert into another
    /// table, and the reads, succeed; the order holds, and the log has one line per request.
    @Test func whenTheGroupsFsyncFailsItsWritesToThatTableAreAnswered503InOrder() throws {
        let h = try TableServerHarness { $0.tables = ["todoitem", "other"] }
        let big = String(repeating: "b", count: 24_000)
        try h.insert(#"{"id":"big","text":"\#(big)"}"#, table: "other")
        FsyncFault.inject(h.storage, "todoitem")
        defer { h.storage.close() }  // closes the log's descriptor, which the harness would leave open

        let client = try RawHTTPClient(port: h.port)
        let requests: [(method: String, target: String, text: String)] = [
            ("POST", "/tables/todoitem", Self.request("POST", "/tables/todoitem", body: #"{"id":"a"}"#)),
            ("POST", "/tables/todoitem", Self.request("POST", "/tables/todoitem", g2: false, body: #"{"id":"b"}"#)),
            ("GET", "/tables/other/big", Self.request("GET", "/tables/other/big")),
            ("GET", "/tables/other/big", Self.request("GET", "/tables/other/big")),
            ("GET", "/tables/other/big", Self.request("GET", "/tables/other/big")),
            ("GET", "/tables/other/big", Self.request("GET", "/tables/other/big")),
            ("POST", "/tables/other", Self.request("POST", "/tables/other", body: #"{"id":"c"}"#)),
            // Sent after the failure: refused before anything is appended, as before.
            ("POST", "/tables/todoitem", Self.request("POST", "/tables/todoitem", body: #"{"id":"d"}"#)),
            ("POST", "/tables/todoitem", Self.request("POST", "/tables/todoitem", g2: false, body: #"{"id":"e"}"#)),
        ]
        try client.send(requests.map(\.text).joined())
        var responses: [HTTPResponse] = []
        for request in requests { responses.append(try client.readResponse(method: request.method)) }

        #expect(responses.map(\.status) == [503, 503, 200, 200, 200, 200, 201, 503, 503])
        let g2Error = try #require(try? JSONValue.parse(responses[0].body))
        let message = try #require(g2Error["error"]?.stringValue)
        #expect(message.hasPrefix("The storage is unavailable: ") && message.contains("fsync failed"), "\(message)")
        // The same answers as a write that fails on its own (d, e), in G2 and in G1 form.
        #expect(responses[0] == responses[7])
        #expect(responses[1] == responses[8])
        #expect((try? JSONValue.parse(responses[1].body))?["code"] == .number(503))
        #expect((try? JSONValue.parse(responses[2].body))?["text"] == .string(big))

        #expect(try h.storage.row("other", id: "c") != nil)
        #expect(h.logLines.all.suffix(requests.count).map { $0.split(separator: " ").prefix(4).joined(separator: " ") }
            == zip(requests, responses).map { "127.0.0.1 \($0.method) \($0.target) \($1.status)" })
    }

    /// One pipelined request: `g2` adds `ZUMO-API-VERSION: 2.0.0`.
    static func request(_ method: String, _ target: String, g2: Bool = true, headers: String = "",
                        body: String? = nil) -> String {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers
        if g2 { text += "ZUMO-API-VERSION: 2.0.0\r\n" }
        if let body { text += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body }
        else { text += "\r\n" }
        return text
    }
}
