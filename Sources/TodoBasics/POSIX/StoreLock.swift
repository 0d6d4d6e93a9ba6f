#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One writer at a time: an exclusive `flock(2)` on a permanent lock file that also names its holder.
///
/// Why flock rather than git's O_EXCL lock file: the kernel releases the lock when its holder dies,
/// so a `kill -9` can never leave a stale lock that blocks the user. The pid and command are written
/// into the file only for the message a second writer gets. The descriptor is O_CLOEXEC so `$EDITOR`
/// and other children never inherit the lock.
public final class StoreLock {
    public let path: String
    private var fd: Int32

    /// Someone else holds the lock.
    public struct Held: Error, Equatable, Sendable {
        public var path: String
        /// The holder as written in the lock file: pid, and the command when known.
        public var pid: Int32?
        public var command: String?
    }

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    /// Takes the lock, waiting up to `waitMilliseconds` for a holder that is about to finish (two
    /// quick commands started together both succeed). Throws `Held` when another process keeps it.
    public static func acquire(at path: String, command: String, waitMilliseconds: Int = 1000) throws -> StoreLock {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if fd < 0 {
            let code = errno
            throw FileSystemError(operation: "open lock file", path: path, code: code, reason: errnoText(code))
        }
        var waited = 0
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            if code == EWOULDBLOCK && waited < waitMilliseconds {
                usleep(5_000)
                waited += 5
                continue
            }
            close(fd)
            if code == EWOULDBLOCK {
                let (pid, holder) = readHolder(path)
                throw Held(path: path, pid: pid, command: holder)
            }
            throw FileSystemError(operation: "lock", path: path, code: code, reason: errnoText(code))
        }
        let text = Array("\(getpid()) \(command)\n".utf8)
        _ = ftruncate(fd, 0)
        _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return StoreLock(path: path, fd: fd)
    }

    /// Releases the lock. Also happens when the process exits, however it exits.
    public func release() {
        guard fd >= 0 else { return }
        _ = ftruncate(fd, 0)
        close(fd)
        fd = -1
    }

    deinit { release() }

    private static func readHolder(_ path: String) -> (Int32?, String?) {
        guard let bytes = try? LocalFileSystem().readFile(path) else { return (nil, nil) }
        let line = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first ?? ""
        let parts = line.split(separator: " ", maxSplits: 1)
        let pid = parts.first.flatMap { Int32($0) }
        let command = parts.count > 1 ? String(parts[1]) : nil
        return (pid, command)
    }
}
