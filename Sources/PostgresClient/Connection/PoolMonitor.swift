#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TodoBasics

/// A mutex with a condition: what the pool needs so a checkout can wait for a checkin.
/// (`Mutex` from Synchronization cannot wait.) The condition runs on the monotonic clock, so
/// changing the wall clock never stretches or cuts a wait.
final class PoolMonitor<State>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var state: State

    init(_ state: State) {
        self.state = state
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        #if os(Linux)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        #endif
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
    }

    func withLock<T>(_ body: (inout State) throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }

    /// Runs `body` under the lock until it returns a value, waiting for a `signal` between tries;
    /// nil when the deadline passes first.
    func waitFor<T>(until deadline: Deadline, _ body: (inout State) -> T?) -> T? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while true {
            if let value = body(&state) { return value }
            let left = deadline.remainingMilliseconds
            if left == 0 {
                // A `signal` may have chosen this waiter as it timed out: pass it on.
                pthread_cond_signal(condition)
                return nil
            }
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            var wake = timespec(tv_sec: now.tv_sec + Int(left / 1000), tv_nsec: now.tv_nsec + Int(left % 1000) * 1_000_000)
            if wake.tv_nsec >= 1_000_000_000 { wake.tv_sec += 1; wake.tv_nsec -= 1_000_000_000 }
            pthread_cond_timedwait(condition, mutex, &wake)
        }
    }

    /// Wakes one waiter: one connection came back, one checkout can use it. Waking all of them
    /// (32 HTTP workers on 8 connections) made every checkin a storm of futex wake-ups.
    func signal() {
        pthread_mutex_lock(mutex)
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Wakes every waiter (each re-checks its own condition).
    func broadcast() {
        pthread_mutex_lock(mutex)
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }
}
