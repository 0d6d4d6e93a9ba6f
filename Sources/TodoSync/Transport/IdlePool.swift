import Synchronization

/// Idle connections (sockets or helper processes) waiting for their next request.
///
/// Each `send` takes one out, so a connection is only ever used by one thread; the lock is held
/// just for the array operation. Newest first: the connection used last is the least likely to
/// have been closed by the server's idle timeout. `drain()` starts a new generation, so a
/// connection that was busy during `close()` is closed when it comes back instead of pooled.
final class IdlePool<Connection: Sendable>: Sendable {
    private struct State {
        var idle: [Connection] = []
        var generation = 0
    }

    private let state = Mutex(State())
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The newest idle connection and the current generation (pass it back to `put`).
    func take() -> (connection: Connection?, generation: Int) {
        state.withLock { ($0.idle.popLast(), $0.generation) }
    }

    /// The generation a newly opened connection belongs to.
    var generation: Int { state.withLock { $0.generation } }

    /// Keeps `connection` for reuse. Returns it when it must be closed instead (pool full, or
    /// `drain()` ran since it was taken).
    func put(_ connection: Connection, generation: Int) -> Connection? {
        state.withLock { state in
            guard generation == state.generation, state.idle.count < capacity else { return connection }
            state.idle.append(connection)
            return nil
        }
    }

    /// Empties the pool and returns what was in it, for closing.
    func drain() -> [Connection] {
        state.withLock { state in
            state.generation += 1
            defer { state.idle = [] }
            return state.idle
        }
    }
}
