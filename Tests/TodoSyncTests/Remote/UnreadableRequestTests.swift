import Testing
import TableProtocol
import TodoModel
@testable import TodoSync

/// The rule behind it, on the answers alone (`TableClient`): a 400 that closes a connection the
/// request meant to keep is the server refusing unreadable bytes (protocol §3.3); any other 400
/// is the server's answer to the request, a rejection (sync.md §4.7).
@Suite struct UnreadableRequestTests {
    static func send(_ response: HTTPResponse, closing: Bool = false) -> Result<TableReply, TransportFailure> {
        let client = TableClient(transport: ScriptedTransport { _ in .success(response) }, generation: .mobileApps, basePath: "",
                                 appKey: nil, installationID: "test", todoVersion: "test",
                                 retry: RetryPolicy(jitter: { 0 }, sleep: { _ in }))
        let call = TableCall.update(table: "todoitem", id: "x", body: ["text": "a"], version: nil)
        guard closing else { return client.send(call, purpose: .push) }
        var request = client.request(for: call, purpose: .push)
        request.headers["Connection"] = "close"
        return client.answer(client.transport.send(request), to: request)
    }

    static func answer(_ status: Int, close: Bool) -> HTTPResponse {
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        if close { headers["Connection"] = "close" }
        return HTTPResponse(status: status, headers: headers, body: Array(#"{"error":"malformed request line: invalid character '/' in method"}"#.utf8))
    }

    @Test("400 and close, to a keep-alive request: a failure that may have reached the server, with the server's words")
    func framingRefusal() {
        let result = Self.send(Self.answer(400, close: true))
        guard case .failure(let failure) = result else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(failure.mayHaveReachedServer, "a replay check goes before the next attempt")
        #expect(failure == .unreadableRequest(status: 400, message: "malformed request line: invalid character '/' in method"))
    }

    @Test("400 on a connection kept open, 413 and close, or 400 and close when the request asked to close: answers")
    func answers() {
        #expect((try? Self.send(Self.answer(400, close: false)).get())?.status == 400)
        #expect((try? Self.send(Self.answer(413, close: true)).get())?.status == 413)
        #expect((try? Self.send(Self.answer(400, close: true), closing: true).get())?.status == 400)
    }
}
