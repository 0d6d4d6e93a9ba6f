#if canImport(Glibc)
import Glibc
#endif

/// State behind a POSIX reader-writer lock: any number of readers at once, or one writer.
///
/// Why not `Mutex`: the server's reads (a page of rows, one row) vastly outnumber writes, and a
/// mutex makes 32 readers queue (and spin) behind each other. Writers are preferred so a steady
/// stream of reads cannot starve them.
public final class ReadWriteLocked<State>: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>
    private var state: State

    public init(_ state: State) {
        self.state = state
        lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)
        var attributes = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attributes)
        pthread_rwlockattr_setkind_np(&attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        pthread_rwlock_init(lock, &attributes)
        pthread_rwlockattr_destroy(&attributes)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    /// Shared access: `body` must not change anything reachable from the state.
    public func withReadLock<T, E: Error>(_ body: (State) throws(E) -> T) throws(E) -> T {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body(state)
    }

    /// Exclusive access.
    public func withLock<T, E: Error>(_ body: (inout State) throws(E) -> T) throws(E) -> T {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body(&state)
    }
}
