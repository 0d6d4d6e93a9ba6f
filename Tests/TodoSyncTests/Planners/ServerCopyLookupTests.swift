import Testing
import TableProtocol
import TodoModel
@testable import TodoSync

/// The one-row query for an op's server copy (protocol §10.3, sync.md §4.5.1, §4.6.1): what each
/// answer becomes, one row a case. A stop is asserted as its reason, not its sentence.
@Suite struct ServerCopyLookupTests {
    typealias F = PushFixtures

    static func fetch(_ op: PendingOperation, _ response: HTTPResponse) -> Result<Item?, SyncStop> {
        let client = TableClient(transport: ScriptedTransport { _ in .success(response) }, generation: .mobileApps, basePath: "",
                                 appKey: nil, installationID: "test", todoVersion: "test",
                                 retry: RetryPolicy(jitter: { 0 }, sleep: { _ in }), endpoint: WrongURLTests.endpoint)
        return OperationSender(client: client).fetch(op)
    }

    static func json(_ status: Int, _ body: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: Array(body.utf8))
    }

    @Test("rows of other ids: the server ignores $filter, the push stops (exit 4)") func otherIDs() {
        let op = F.update()
        let answer = Self.fetch(op, Self.json(200, #"[{"id":"someone-else","version":"v1","text":"x"}]"#))
        #expect(answer == .failure(SyncStop(.idFilterIgnored(table: op.table, id: op.id, status: 200))))
        #expect((try? answer.get()) == nil)
    }

    @Test("an answer with no meaning here (418): a stop naming the status, the item and what the server said") func unexpected() {
        let op = F.update()
        let answer = Self.fetch(op, Self.json(418, #"{"error":"teapot"}"#))
        #expect(answer == .failure(SyncStop(.unexpectedLookupAnswer(status: 418, table: op.table, id: op.id, serverMessage: "teapot"))))
        if case .failure(let stop) = answer { #expect(stop.kind == .config && stop.status == 418) }
    }

    @Test("a 2xx that is no list: not the table protocol") func notAList() {
        let answer = Self.fetch(F.update(), Self.json(200, #"{"status":"ok"}"#))
        #expect(answer == .failure(SyncStop(.wrongURL(.otherJSON(status: 200), remote: WrongURLTests.endpoint))))
    }

    @Test("404 or an empty list: no server copy") func none() {
        #expect(Self.fetch(F.update(), Self.json(404, #"{"error":"gone"}"#)) == .success(nil))
        #expect(Self.fetch(F.update(), Self.json(200, "[]")) == .success(nil))
    }
}
