#if canImport(Glibc)
import Glibc
#endif
import TodoTestSupport
import Synchronization
import Testing
import TodoBasics
@testable import PostgresClient

/// A table name no other test uses (tests run in parallel on the shared cluster).
func uniqueName(_ prefix: String) -> String {
    "\(prefix)_\(UInt32.random(in: 0...UInt32.max))"
}

/// Asks the server to end a backend (as an administrator or a failover would) and waits until it
/// is gone from pg_stat_activity, so what the test does next meets a dead session for certain.
func terminateBackend(_ processID: Int32, using admin: PostgresConnection) throws {
    let rows = try admin.query("SELECT pg_terminate_backend($1)", [.int32(processID)])
    #expect(try rows[0].decode(0, as: Bool.self))
    try waitUntil("backend \(processID) has exited") {
        try admin.query("SELECT count(*) FROM pg_stat_activity WHERE pid = $1", [.int(Int64(processID))])[0]
            .decode(0, as: Int.self) == 0
    }
}

/// Polls `condition` every 20 ms, up to 1,500 times (30 s): a wait for a state, not a timed assertion.
func waitUntil(_ what: String, _ condition: () throws -> Bool) throws {
    for _ in 0..<1500 {
        if try condition() { return }
        usleep(20_000)
    }
    throw ClusterError(description: "gave up waiting until \(what)")
}

/// Lets `count` threads meet: each `arrive` returns once all have arrived.
final class Rendezvous: Sendable {
    private let monitor: PoolMonitor<Int>
    private let count: Int

    init(_ count: Int) {
        self.count = count
        monitor = PoolMonitor(0)
    }

    func arrive() {
        monitor.withLock { $0 += 1 }
        monitor.broadcast()
        let met = monitor.waitFor(until: Deadline(secondsFromNow: 30)) { arrived in arrived >= count ? true : nil }
        #expect(met == true, "the other thread never arrived")
    }
}

/// A counter threads may share.
final class Counter: Sendable {
    private let value = Mutex(0)
    func increment() -> Int { value.withLock { $0 += 1; return $0 } }
    func add(_ n: Int) { value.withLock { $0 += n } }
    var current: Int { value.withLock { $0 } }
    /// Raises the stored maximum to `candidate` when larger.
    func raise(to candidate: Int) { value.withLock { $0 = max($0, candidate) } }
}
