#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import TableProtocol
import TodoBasics
import TodoModel

/// Clients inserting and reading through one node without pause, until `finish`, counting what
/// they were answered (for `PostgresOutageTests`). A request not answered before its socket's
/// deadline, or answered anything but 200, 201 or 503, is a failure.
final class OutageLoad: Sendable {
    enum Kind { case ok, unavailable }

    /// Longer than the most a node may honestly take (pool checkout 10 s, connect 10 s, query
    /// 30 s: `PostgresPool`, `PostgresConfig`), short of a hang.
    static let deadline: Duration = .seconds(60)

    private struct State {
        var ok = 0
        var unavailable = 0
        var messages: Set<String> = []
        var failures: [String] = []
        var inserted: Set<String> = []
        var finished = false
    }

    let port: Int
    private let state = Mutex(State())

    init(port: Int) { self.port = port }

    func run(client: Int) {
        var n = 0
        while !state.withLock({ $0.finished }) {
            n += 1
            let id = "load\(client)-\(n)"
            let (method, target, body) = n % 2 == 0 ? ("GET", "/tables/todoitem?$top=5", "")
                : ("POST", "/tables/todoitem", #"{"id":"\#(id)","text":"t"}"#)
            do {
                let answer = try PostgresServerProcessTests.send(port, method, target, body, deadline: Self.deadline)
                state.withLock { s in
                    switch answer.status {
                    case 200, 201:
                        s.ok += 1
                        if method == "POST" { s.inserted.insert(id) }
                    case 503:
                        s.unavailable += 1
                        s.messages.insert((try? JSONValue.parse(answer.body))?["error"]?.stringValue ?? "")
                    default:
                        s.failures.append("\(method) \(target): \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
                    }
                }
            } catch {
                state.withLock { $0.failures.append("\(method) \(target): \(error)") }
            }
        }
    }

    func answered(_ kind: Kind) -> Int { state.withLock { kind == .ok ? $0.ok : $0.unavailable } }
    var messages: Set<String> { state.withLock { $0.messages } }
    var failures: [String] { state.withLock { $0.failures } }
    var inserted: Set<String> { state.withLock { $0.inserted } }

    /// Waits until `condition` holds, at most about 60 s (a bound on progress, not a speed test).
    func await(_ condition: (OutageLoad) -> Bool) -> Bool {
        for _ in 0..<6_000 {
            if condition(self) { return true }
            usleep(10_000)
        }
        return false
    }

    func finish() { state.withLock { $0.finished = true } }
}
