#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files only their owner may read: created with mode 0600 before any byte is written, so a
/// secret is never readable by others, not even for a moment.
public enum PrivateFile {
    /// Creates `path` empty with mode 0600, or empties an existing one and makes it 0600
    /// (`LocalFileSystem.writeFile` then writes into it without changing its mode).
    public static func create(_ path: String) throws(FileSystemError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let code = errno
            throw FileSystemError(operation: "create", path: path, code: code, reason: errnoText(code))
        }
        defer { close(fd) }
        guard fchmod(fd, 0o600) == 0 else {
            let code = errno
            throw FileSystemError(operation: "chmod", path: path, code: code, reason: errnoText(code))
        }
    }
}
