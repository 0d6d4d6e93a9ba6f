#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The fault proxy's open client connections: each connection's thread closes its own, and
/// `stop()` shuts down those still open so their threads end.
///
/// Why a registration per connection, not the descriptor's number: a number is free for reuse the
/// moment it is closed. A thread that closed its client and later asked again "close it if still
/// open" by number could find the next accepted connection under that number and close it under
/// that connection's thread. In the test process, where server, clients and proxy share one
/// descriptor table, the number can then be reused again by anyone, and a thread still reading it
/// takes another connection's bytes (once under load: a request's tail read as a new request).
final class ProxyClients: Sendable {
    /// One registered client connection; `id` is never reused, unlike `fd`.
    struct Client: Sendable {
        let id: UInt64
        let fd: Int32
    }

    private struct State {
        var open: [UInt64: Int32] = [:]
        var nextID: UInt64 = 0
    }

    /// `close(2)`; tests pass one that records instead (`ProxyClientsTests`).
    private let closer: @Sendable (Int32) -> Void
    private let state = Mutex(State())

    init(closer: @escaping @Sendable (Int32) -> Void = { _ = Glibc.close($0) }) {
        self.closer = closer
    }

    /// A connection just accepted on `fd`.
    func register(_ fd: Int32) -> Client {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.open[id] = fd
            return Client(id: id, fd: fd)
        }
    }

    /// Closes `client` unless it is closed already; `reset` sends an RST instead of a FIN.
    /// Under the lock, so `shutdownAll()` never touches a descriptor after its close.
    func close(_ client: Client, reset: Bool) {
        state.withLock { state in
            guard let fd = state.open.removeValue(forKey: client.id) else { return }
            if reset {
                var option = linger(l_onoff: 1, l_linger: 0)
                setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
            }
            closer(fd)
        }
    }

    /// Ends every open connection's input and output, so its thread sees the end and closes it.
    func shutdownAll() {
        state.withLock { state in
            for fd in state.open.values { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }
}
