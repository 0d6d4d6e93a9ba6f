import Synchronization
import Testing

/// The fault proxy closes each client connection exactly once, even when the connection's thread
/// asks twice (a fault closes at once, the thread's exit closes again) and the descriptor's number
/// was meanwhile given to a new connection. Closing by number would close that new connection
/// under its thread; in the test process, where server, clients and proxy share one descriptor
/// table, the number can even belong to the server's side of another request, whose bytes then
/// go astray (once under load: a request's tail read by the server as a new request).
@Suite struct ProxyClientsTests {
    /// A number no real descriptor has, so the proxy's `setsockopt` and `shutdown` on it fail
    /// harmlessly; the closes are recorded instead of made.
    static let number: Int32 = Int32.max - 7

    /// The descriptors closed, in order.
    final class Closes: Sendable {
        private let list = Mutex<[Int32]>([])
        func record(_ fd: Int32) { list.withLock { $0.append(fd) } }
        var all: [Int32] { list.withLock { $0 } }
    }

    static func recording() -> (ProxyClients, Closes) {
        let closed = Closes()
        return (ProxyClients(closer: { closed.record($0) }), closed)
    }

    @Test("a connection closed twice closes once, and not the next connection under its number")
    func secondCloseLeavesTheReusedNumberAlone() {
        let (clients, closed) = Self.recording()
        let first = clients.register(Self.number)
        clients.close(first, reset: false)
        let next = clients.register(Self.number)  // accept gave the freed number to a new connection
        clients.close(first, reset: true)
        #expect(closed.all == [Self.number], "only the first connection was closed")
        clients.close(next, reset: false)
        #expect(closed.all == [Self.number, Self.number], "the new connection closes when its own thread says so")
    }

    @Test("each registered connection is closed exactly once, however often its thread asks")
    func everyConnectionOnce() {
        let (clients, closed) = Self.recording()
        let a = clients.register(Self.number)
        let b = clients.register(Self.number - 1)
        for _ in 0..<3 {
            clients.close(a, reset: false)
            clients.close(b, reset: true)
        }
        #expect(closed.all == [Self.number, Self.number - 1])
    }
}
