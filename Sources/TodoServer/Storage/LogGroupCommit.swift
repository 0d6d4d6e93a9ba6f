import Glibc
import TodoBasics

/// Group commit for one log file: writers that wait for durability share fsyncs.
///
/// Positions are log sequence numbers (LSN): bytes ever appended to the table's log, which keep
/// growing across compactions (unlike file offsets). A writer appends under the table lock, notes
/// its end LSN here, releases the table lock, and hands back a `DurabilityTicket` for that LSN;
/// whoever sends its answer waits until `durable` reaches it (once for a group of pipelined
/// answers). One waiter at a time runs `fdatasync` for everything appended so far; the others
/// sleep and usually find their bytes covered when it returns. So N concurrent writers cost about
/// one fsync per round, not N, while no write is acknowledged before an fsync that began after its
/// bytes were written.
///
/// After a failed fsync the kernel may have dropped the dirty pages (and marked them clean, so a
/// later fsync would succeed without writing them: PostgreSQL's 2018 lesson), so whether the bytes
/// are on disk is unknown, and the memory they were applied to can no longer be trusted. The table
/// is poisoned: every later wait for bytes beyond what was durable throws, for writers and readers
/// alike, so nothing not known durable is acknowledged or shown, until a restart replays the log.
/// Retrying the fsync would prove nothing, hence no retry.
final class LogGroupCommit: @unchecked Sendable {
    private let condition = StorageConditionLock()
    private let io: any LogFileIO
    /// The table's configured name, for the message of a failed fsync.
    private let table: String
    /// Told once, when a failed fsync or append poisons the table (the server logs it).
    private let onFailure: @Sendable (StorageError) -> Void
    // Guarded by `condition`.
    private var fd: Int32
    private var path: String
    private var appended: UInt64 = 0
    private var durable: UInt64 = 0
    private var syncing = false
    private var failure: StorageError?
    private var syncs = 0

    /// Takes ownership of `fd`: it is closed by `replaceFile`'s caller or on deinit.
    init(fd: Int32, path: String, table: String, io: any LogFileIO,
         onFailure: @escaping @Sendable (StorageError) -> Void) {
        self.fd = fd
        self.path = path
        self.table = table
        self.io = io
        self.onFailure = onFailure
    }

    deinit {
        if fd >= 0 { _ = Glibc.close(fd) }
    }

    /// The bytes up to `lsn` are in the file (written, maybe not yet on disk).
    func noteAppended(through lsn: UInt64) {
        condition.withLock { appended = max(appended, lsn) }
    }

    /// Returns once everything up to `lsn` is on stable storage; throws if that can no longer happen.
    /// Writers wait so before they answer, readers so before they show what they read: a reader
    /// that saw a write whose fsync failed must not show it either (issue 17).
    func waitDurable(through lsn: UInt64) throws(StorageError) {
        if let failure = wait(through: lsn) { throw failure }
    }

    /// Stops all writes: `error` is what every later wait beyond the durable end throws. `report`
    /// tells `onFailure` (not for a normal close).
    func fail(_ error: StorageError, report: Bool) {
        let first = condition.withLock {
            defer { condition.broadcast() }
            guard failure == nil else { return false }
            failure = error
            return true
        }
        if first && report { onFailure(error) }
    }

    var currentFailure: StorageError? { condition.withLock { failure } }

    /// No sync running, and none will be needed: everything through `lsn` is durable, or the table
    /// failed (and syncs no more). Only then may the descriptor be closed (`OpenLogs`).
    func isSettled(through lsn: UInt64) -> Bool {
        condition.withLock { !syncing && (durable >= lsn || failure != nil) }
    }

    /// Bytes appended and bytes known durable (tests check a write returns only when they meet).
    var positions: (appended: UInt64, durable: UInt64) { condition.withLock { (appended, durable) } }

    /// How many fsyncs ran (to see group commit at work in benchmarks).
    var syncCount: Int { condition.withLock { syncs } }

    /// Switches to a new file whose contents, up to `lsn`, are already durable (compaction). Waits
    /// for a running fsync of the old file to end first. Returns the old descriptor to close.
    func replaceFile(fd newFD: Int32, path newPath: String, durableThrough lsn: UInt64) -> Int32 {
        condition.lock()
        defer { condition.unlock() }
        while syncing { condition.wait() }
        let old = fd
        fd = newFD
        path = newPath
        durable = max(durable, lsn)
        appended = max(appended, lsn)
        condition.broadcast()
        return old
    }

    private func wait(through lsn: UInt64) -> StorageError? {
        condition.lock()
        defer { condition.unlock() }
        while durable < lsn {
            if let failure { return failure }
            if syncing {
                condition.wait()
                continue
            }
            syncing = true
            let goal = appended, file = fd, filePath = path
            condition.unlock()
            var result: Int32
            repeat { result = io.fdatasync(file) } while result != 0 && errno == EINTR
            let code = errno
            condition.lock()
            syncing = false
            syncs += 1
            var poisoned: StorageError?
            if result == 0 {
                durable = max(durable, goal)
            } else if failure == nil {
                failure = Self.syncFailure(table: table, path: filePath, code: code)
                poisoned = failure
            }
            condition.broadcast()
            if let poisoned {
                condition.unlock()
                onFailure(poisoned)
                condition.lock()
            }
        }
        return nil
    }

    /// What a table whose fsync failed answers from then on: what happened, what it means for
    /// the data, and what the operator must do.
    static func syncFailure(table: String, path: String, code: Int32) -> StorageError {
        StorageError(.unavailable, path: path,
                     "fsync failed (\(errnoText(code))), so the latest writes to table '\(table)' may not be on "
                         + "disk: the table answers no reads and no writes until the server restarts. Check the "
                         + "disk (dmesg, free space), then restart todo-server: it recovers the table from what "
                         + "its log holds")
    }
}

/// A pthread mutex with a condition variable: the group commit has to sleep until an fsync ends,
/// which `Mutex` cannot express.
final class StorageConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(cond, nil)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
    /// Sleeps until `broadcast`; the caller holds the lock and holds it again on return.
    func wait() { pthread_cond_wait(cond, mutex) }
    func broadcast() { pthread_cond_broadcast(cond) }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
