#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The fault proxy's open client connections: each connection's thread closes its own, and
/// `stop()` shuts down those still open so their threads end.
final class ProxyClients: Sendable {
    /// One registered client connection.
    struct Client: Sendable {
        let fd: Int32
    }

    /// `close(2)`; tests pass one that records instead (`ProxyClientsTests`).
    private let closer: @Sendable (Int32) -> Void
    private let open = Mutex<Set<Int32>>([])

    init(closer: @escaping @Sendable (Int32) -> Void = { _ = Glibc.close($0) }) {
        self.closer = closer
    }

    /// A connection just accepted on `fd`.
    func register(_ fd: Int32) -> Client {
        open.withLock { _ = $0.insert(fd) }
        return Client(fd: fd)
    }

    /// Closes `client` unless it is closed already; `reset` sends an RST instead of a FIN.
    func close(_ client: Client, reset: Bool) {
        let fd = client.fd
        let wasOpen = open.withLock { $0.remove(fd) != nil }
        guard wasOpen else { return }
        if reset {
            var option = linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        }
        closer(fd)
    }

    /// Ends every open connection's input and output, so its thread sees the end and closes it.
    func shutdownAll() {
        open.withLock { open in
            for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }
}
