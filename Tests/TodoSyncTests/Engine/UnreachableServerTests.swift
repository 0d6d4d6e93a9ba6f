import Synchronization
import Testing
import TableProtocol
import TodoBasics
import TodoModel
import TodoStore
@testable import TodoSync
import TodoTestSupport

/// Issue 19 item 4: with the server down, push and pull give up at once (one short retry), however
/// long the queue; nothing is sealed, nothing is lost. Checked by the waits the retry policy asks
/// for and the requests tried, not by a clock.
@Suite struct UnreachableServerTests {
    final class Waits: Sendable {
        let total = Mutex(0.0)
        var seconds: Double { total.withLock { $0 } }
    }

    static func refused() -> ScriptedTransport {
        ScriptedTransport { _ in .failure(.cannotConnect(endpoint: "127.0.0.1:9", reason: "Connection refused")) }
    }

    static func client(_ transport: ScriptedTransport, _ waits: Waits) -> TableClient {
        let retry = RetryPolicy(jitter: { 0 }, sleep: { s in waits.total.withLock { $0 += s } })
        return TableClient(transport: transport, generation: .mobileApps, basePath: "", appKey: nil,
                           installationID: "test", todoVersion: "test", retry: retry)
    }

    /// A replica with `count` pending inserts.
    static func replica(_ dir: TempDirectory, pending count: Int) throws -> Store {
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("init", "--remote", "http://127.0.0.1:9").code == 0)
        for i in 0..<count { #expect(cli.run("add", "item \(i)", "--id", "i\(i)").code == 0) }
        return try Store.open(at: dir.sub(".todo"), fs: LocalFileSystem(), writable: true, command: "push")
    }

    @Test("push with the server down: one short retry, then a stop; 60 ops kept unsealed") func pushGivesUpAtOnce() throws {
        let dir = TempDirectory("todo-unreachable")
        defer { dir.remove() }
        let store = try Self.replica(dir, pending: 60)
        let transport = Self.refused(), waits = Waits()
        let report = try PushEngine(store: store, client: Self.client(transport, waits), clock: .fixed(0)).run(PushEngine.Options())
        #expect(report.stop?.kind == .network)
        #expect(report.remaining == 60)
        #expect(try store.operations().allSatisfy { !$0.isSealed }, "a refused connection proves nothing was sent")
        // At most one short wait per lane that was already retrying when the first op stopped the push.
        #expect(waits.seconds <= 8 * 0.5, "waited \(waits.seconds) s")
        #expect(transport.requests <= 60 + 8, "\(transport.requests) requests")
    }

    @Test("pull with the server down: one short retry, then a stop") func pullGivesUpAtOnce() throws {
        let dir = TempDirectory("todo-unreachable")
        defer { dir.remove() }
        let store = try Self.replica(dir, pending: 0)
        let transport = Self.refused(), waits = Waits()
        let report = try PullEngine(store: store, client: Self.client(transport, waits), clock: .fixed(0), pageSize: 50).run(.init())
        #expect(report.stop?.kind == .network)
        #expect(transport.requests == 2)
        #expect(waits.seconds == 0.5)
    }

    @Test("a timeout after the request left still gets the whole retry schedule") func timeoutsKeepTheirRetries() {
        let policy = RetryPolicy(jitter: { 0 })
        let timeout = TransportFailure.timedOut(seconds: 30, requestSent: true)
        #expect(policy.delay(after: 1, failure: timeout) == 1)
        #expect(policy.delay(after: 2, failure: timeout) == 3)
        #expect(policy.delay(after: 3, failure: timeout) == nil)
        let refused = TransportFailure.cannotConnect(endpoint: "h:1", reason: "refused")
        #expect(policy.delay(after: 1, failure: refused) == 0.5)
        #expect(policy.delay(after: 2, failure: refused) == nil)
    }
}
