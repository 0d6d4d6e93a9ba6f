import Testing
import TableProtocol
import TodoBasics
import TodoModel
import TodoStore
@testable import TodoSync
import TodoTestSupport

/// Issue 19 item 4: a URL that points at a web site, a redirect or some other JSON service stops
/// push and pull with a `WrongURL` stop naming what came back (its sentence is `SyncStopText`'s,
/// tested in TodoCLITests); never the page itself, never a retry, and nothing of the queue is lost.
@Suite struct WrongURLTests {
    static let endpoint = RemoteEndpoint(scheme: .http, host: "127.0.0.1", port: 9)

    static func client(_ respond: @escaping @Sendable (HTTPRequest) -> HTTPResponse) -> (TableClient, ScriptedTransport) {
        let transport = ScriptedTransport { .success(respond($0)) }
        let retry = RetryPolicy(jitter: { 0 }, sleep: { _ in })
        let client = TableClient(transport: transport, generation: .mobileApps, basePath: "", appKey: nil,
                                 installationID: "test", todoVersion: "test", retry: retry, endpoint: endpoint)
        return (client, transport)
    }

    static let page = Array("<!DOCTYPE html><html><body><h1>Welcome to nginx!</h1></body></html>".utf8)

    static func html(_ status: Int) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/html; charset=utf-8"], body: page)
    }

    static func webPage(_ status: Int) -> SyncStop {
        SyncStop(.wrongURL(.webPage(status: status, mediaType: "text/html"), remote: endpoint))
    }

    static func pull(_ respond: @escaping @Sendable (HTTPRequest) -> HTTPResponse) throws -> (PullReport, ScriptedTransport) {
        let dir = TempDirectory("todo-wrong-url")
        defer { dir.remove() }
        let store = try UnreachableServerTests.replica(dir, pending: 0)
        let (client, transport) = client(respond)
        return (try PullEngine(store: store, client: client, clock: .fixed(0), pageSize: 50).run(.init()), transport)
    }

    @Test("pull from a web page (200 or 404 text/html): one sentence, no HTML, one request",
          arguments: [200, 404, 501])
    func pullFromAWebPage(status: Int) throws {
        let (report, transport) = try Self.pull { _ in Self.html(status) }
        #expect(report.stop == Self.webPage(status))
        #expect(report.stop?.kind == .wrongURL)
        #expect(transport.requests == 1, "a web page is not worth a retry")
        #expect(report.queries.allSatisfy { $0.rejected == nil })
    }

    @Test("a proxy's 502 page is the server's trouble: retried, then reported without its HTML")
    func pullThroughABrokenProxy() throws {
        let (report, transport) = try Self.pull { _ in Self.html(502) }
        #expect(report.stop?.kind == .server)
        #expect(report.stop == SyncStop(.serverTrouble(status: 502, serverMessage: nil)))
        #expect(transport.requests == 3)
    }

    @Test("a 503 with the server's reason: the reason once, without its final full stop")
    func pullFromAnUnavailableStore() throws {
        let body = Array(#"{"error":"The storage is unavailable: storage: PostgreSQL (cannot connect: is it running?)."}"#.utf8)
        let (report, transport) = try Self.pull { _ in HTTPResponse(status: 503, headers: ["Content-Type": "application/json"], body: body) }
        #expect(report.stop == SyncStop(.serverTrouble(status: 503, serverMessage:
            "The storage is unavailable: storage: PostgreSQL (cannot connect: is it running?).")))
        #expect(transport.requests == 3)
    }

    @Test func pullFromAnotherJSONService() throws {
        let (report, _) = try Self.pull { _ in
            HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(#"{"status":"ok"}"#.utf8))
        }
        #expect(report.stop?.kind == .wrongURL)
        #expect(report.stop == SyncStop(.wrongURL(.otherJSON(status: 200), remote: Self.endpoint)))
    }

    @Test("a redirect names its target and the remote URL to set", arguments: [
        ("https://example.com/api/tables/todoitem?$top=50", "https://example.com/api/tables/todoitem?$top=50", "https://example.com/api"),
        ("/v2/tables/todoitem", "http://127.0.0.1:9/v2/tables/todoitem", "http://127.0.0.1:9/v2"),
        ("https://example.com/", "https://example.com/", "https://example.com"),
    ])
    func pullRedirected(location: String, shown: String, base: String) throws {
        let (report, transport) = try Self.pull { _ in HTTPResponse(status: 301, headers: ["Location": location], body: []) }
        #expect(report.stop?.kind == .wrongURL)
        #expect(report.stop == SyncStop(.wrongURL(.redirect(status: 301, location: shown, remoteURL: base), remote: Self.endpoint)))
        #expect(transport.requests == 1, "redirects are not followed")
    }

    @Test("push to a web page: stops at once, every change kept and unsealed")
    func pushToAWebPage() throws {
        let dir = TempDirectory("todo-wrong-url")
        defer { dir.remove() }
        let store = try UnreachableServerTests.replica(dir, pending: 5)
        let (client, _) = Self.client { _ in Self.html(501) }
        let report = try PushEngine(store: store, client: client, clock: .fixed(0)).run(PushEngine.Options())
        #expect(report.stop == Self.webPage(501))
        #expect(report.remaining == 5)
        #expect(try store.operations().allSatisfy { !$0.isSealed })
        #expect(report.succeeded == 0)
    }

    @Test("push to a JSON service that answers 200 to anything: nothing counts as pushed")
    func pushToAnotherJSONService() throws {
        let dir = TempDirectory("todo-wrong-url")
        defer { dir.remove() }
        let store = try UnreachableServerTests.replica(dir, pending: 3)
        let (client, _) = Self.client { _ in
            HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(#"{"status":"ok"}"#.utf8))
        }
        let report = try PushEngine(store: store, client: client, clock: .fixed(0)).run(PushEngine.Options())
        #expect(report.stop?.kind == .wrongURL)
        #expect(report.succeeded == 0)
        #expect(report.remaining == 3)
        #expect(try store.operations().count == 3)
    }
}
