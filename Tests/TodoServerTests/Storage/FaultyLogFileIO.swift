import Glibc
import Synchronization
@testable import TodoServer

/// A `LogFileIO` that passes every call to the system, except the fdatasync a test arms, which
/// fails with EIO.
///
/// `losingUnsyncedBytes` models what a kernel may do on a failed writeback (the case behind
/// PostgreSQL's 2018 fsync lesson): it drops the dirty pages, so the bytes appended since the
/// file's last successful fdatasync never reach the disk. The fault cuts the file back to that
/// length. Without it, the bytes stay (the outcome of the write is unknown, as after a timeout).
final class FaultyLogFileIO: LogFileIO {
    private struct State {
        var syncs = 0
        var failAt: Int?
        var losing = false
        var failed = 0
        /// Length of each file (by inode) at its last successful fdatasync. By inode, not by
        /// descriptor: the storage closes idle logs and reopens them for the next write (issue 17).
        var syncedLength: [UInt: off_t] = [:]
    }

    private let state = Mutex(State())

    /// The `n`-th fdatasync from now (1 = the next one) fails with EIO.
    func failSync(_ n: Int = 1, losingUnsyncedBytes: Bool) {
        state.withLock { s in
            s.failAt = s.syncs + n
            s.losing = losingUnsyncedBytes
        }
    }

    /// fdatasyncs that failed so far.
    var failedSyncs: Int { state.withLock { $0.failed } }

    func pwrite(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int) -> Int {
        Glibc.pwrite(fd, bytes.baseAddress, bytes.count, off_t(offset))
    }

    func fdatasync(_ fd: Int32) -> Int32 {
        // The length before the sync: bytes appended while it runs may not be covered.
        var st = stat()
        let known = fstat(fd, &st) == 0
        let (fail, cutTo) = state.withLock { s -> (Bool, off_t?) in
            s.syncs += 1
            guard s.syncs == s.failAt else { return (false, nil) }
            s.failAt = nil
            s.failed += 1
            return (true, s.losing && known ? s.syncedLength[UInt(st.st_ino)] : nil)
        }
        if fail {
            if let cutTo { _ = ftruncate(fd, cutTo) }
            errno = EIO
            return -1
        }
        let result = Glibc.fdatasync(fd)
        if result == 0 && known { state.withLock { $0.syncedLength[UInt(st.st_ino)] = st.st_size } }
        return result
    }
}
