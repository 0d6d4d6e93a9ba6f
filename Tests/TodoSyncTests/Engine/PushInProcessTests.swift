import Synchronization
import Testing
import TableProtocol
import TodoBasics
import TodoModel
import TodoStore
@testable import TodoSync
import TodoTestSupport

/// The push engine end to end without a socket (issue 16 items 1 and 2): the requests go to the
/// real table service in this process through `ScriptedTransport`, which may also lose answers.
/// The world's socket server logs every request it serves; it must see none.
@Suite struct PushInProcessTests {
    /// Pushes `replica`'s queue to `world`'s service in this process. `answer` may replace the
    /// service's answer to a request (it gets the request and the service).
    static func push(_ replica: CLIHarness, _ world: SyncWorld,
                     options: PushEngine.Options = PushEngine.Options(batchSize: 50),
                     answer: (@Sendable (HTTPRequest, TableServiceCall) -> Result<HTTPResponse, TransportFailure>)? = nil) throws -> PushReport {
        let store = try Store.open(at: replica.directory.appendingPath(".todo"), fs: LocalFileSystem(), writable: true, command: "push")
        let service = world.service
        let call: TableServiceCall = { service.respond(to: $0) }
        let transport = ScriptedTransport { request in answer.map { $0(request, call) } ?? .success(call(request)) }
        let client = TableClient(transport: transport, generation: .mobileApps, basePath: "", appKey: nil,
                                 installationID: "test", todoVersion: "test", retry: RetryPolicy(jitter: { 0 }, sleep: { _ in }))
        let report = try PushEngine(store: store, client: client, clock: .fixed(0)).run(options)
        #expect(world.requests().isEmpty, "the push went through a socket")
        return report
    }

    typealias TableServiceCall = @Sendable (HTTPRequest) -> HTTPResponse

    @Test("120 inserts, then an update and a delete, pushed through the service in this process") func pushesInProcess() throws {
        let world = try SyncWorld()
        let a = world.replica("A")
        for i in 0..<120 { a.expect(0, "add", "item \(i)", "--id", "i\(i)") }
        var report = try Self.push(a, world)
        #expect(report.stop == nil)
        #expect(report.succeeded == 120 && report.sent[.insert] == 120)
        #expect(world.rows().count == 120)
        #expect(a.operations.isEmpty)

        a.expect(0, "edit", "i7", "--text", "seven")
        a.expect(0, "rm", "i8")
        report = try Self.push(a, world)
        #expect(report.succeeded == 2 && report.sent[.update] == 1 && report.sent[.delete] == 1)
        #expect(world.row("i7")?.objectValue?["text"] == "seven")
        #expect(world.row("i8")?.objectValue?["deleted"] == true)
    }

    @Test("an insert whose answer is lost is retried after a replay check: one row, receipt replay insert-exists") func lostAnswerIsReplayed() throws {
        let world = try SyncWorld()
        let a = world.replica("A")
        a.expect(0, "add", "kept", "--id", "k1")
        a.expect(0, "add", "lost", "--id", "l1")
        let lostOnce = Mutex(false)
        let report = try Self.push(a, world) { request, service in
            let response = service(request)
            let isPost = request.method == "POST" && String(decoding: request.body, as: UTF8.self).contains("\"l1\"")
            // The write lands, the answer does not (a reset after the request left).
            if isPost, !lostOnce.withLock({ let was = $0; $0 = true; return was }) {
                return .failure(.connectionLost(reason: "reset by peer", requestSent: true))
            }
            return .success(response)
        }
        #expect(report.stop == nil)
        #expect(report.succeeded == 2 && report.replayed == 1)
        #expect(report.lines.contains(.init(kind: .insert, table: "todoitem", id: "l1", result: .replayed("insert-exists"))))
        #expect(world.rows().count == 2)
        #expect(lostOnce.withLock { $0 })
    }

    @Test("a 412 on an edit merges with the server's change and sends it again: both changes on the server") func conflictMergesAndResends() throws {
        let world = try SyncWorld()
        let a = world.replica("A")
        a.expect(0, "add", "first", "--id", "m1")
        _ = try Self.push(a, world)
        a.expect(0, "edit", "m1", "--text", "second")
        // Another client completes the item meanwhile.
        #expect(world.raw("PATCH", "/tables/todoitem/m1", body: ["complete": true]).status == 200)
        let report = try Self.push(a, world)
        #expect(report.stop == nil)
        #expect(report.merged == 1 && report.succeeded == 1 && report.newConflicts == 0)
        let row = world.row("m1")?.objectValue
        #expect(row?["text"] == "second" && row?["complete"] == true)
    }

    @Test("an edit that meets a change of the same field records a conflict and holds the item's later ops") func clashIsRecorded() throws {
        let world = try SyncWorld()
        let a = world.replica("A")
        a.expect(0, "add", "first", "--id", "c1")
        _ = try Self.push(a, world)
        a.expect(0, "edit", "c1", "--text", "mine")
        #expect(world.raw("PATCH", "/tables/todoitem/c1", body: ["text": "theirs"]).status == 200)
        let report = try Self.push(a, world)
        #expect(report.newConflicts == 1 && report.succeeded == 0)
        #expect(report.lines == [.init(kind: .update, table: "todoitem", id: "c1", result: .conflict(status: 412, kind: .changedOnBothSides, fields: ["text"]))])
        #expect(report.remaining == 1 && report.openConflicts == 1)
        #expect(world.row("c1")?.objectValue?["text"] == "theirs")
    }
}
