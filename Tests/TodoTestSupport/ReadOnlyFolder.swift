#if canImport(Glibc)
import Glibc
#endif
import TodoBasics

/// Makes a folder really unwritable for a test, by whichever means stops this user.
///
/// `chmod a-w` stops everyone but root; tests may run as root, where it stops nothing. Root is
/// stopped by the immutable attribute (`chattr +i`, set here with the ioctl chattr uses), where
/// the file system supports it. `protect` checks that creating a file really fails before it
/// answers, so a test never believes in a protection that is not there; when neither works it
/// answers nil, and the test uses the file-system seam instead (and says so).
public enum ReadOnlyFolder {
    public enum Method: String, Sendable {
        case chmod, immutable
    }

    /// Protects every file and folder under `path`; nil when no method makes writes fail.
    public static func protect(_ path: String) -> Method? {
        if getuid() != 0 {
            walk(path) { chmod($0, $1 ? 0o555 : 0o444) }
            if creationFails(in: path) { return .chmod }
            release(path, .chmod)
            return nil
        }
        walk(path) { file, _ in setImmutable(file, true) }
        if creationFails(in: path) { return .immutable }
        release(path, .immutable)
        return nil
    }

    /// Undoes `protect`, so the folder can be changed and removed again.
    public static func release(_ path: String, _ method: Method) {
        switch method {
        case .chmod: walk(path, foldersLast: false) { chmod($0, $1 ? 0o755 : 0o644) }
        case .immutable: walk(path, foldersLast: false) { file, _ in setImmutable(file, false) }
        }
    }

    /// Whether creating a file in `path` fails (and so the folder is protected).
    public static func creationFails(in path: String) -> Bool {
        let probe = path.appendingPath(".write-probe")
        let fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if fd < 0 { return true }
        close(fd)
        unlink(probe)
        return false
    }

    /// Calls `body(path, isFolder)` for everything under `path` and `path` itself; folders after
    /// their contents when protecting (a protected folder could not be entered for writing
    /// anyway, but its files must be done first), before them when releasing.
    private static func walk(_ path: String, foldersLast: Bool = true, _ body: (String, Bool) -> Void) {
        let fs = LocalFileSystem()
        let isFolder = fs.isDirectory(path)
        if isFolder && !foldersLast { body(path, true) }
        if isFolder {
            for name in (try? fs.listDirectory(path)) ?? [] { walk(path.appendingPath(name), foldersLast: foldersLast, body) }
        }
        if !isFolder || foldersLast { body(path, isFolder) }
    }

    /// FS_IOC_GETFLAGS / FS_IOC_SETFLAGS and FS_IMMUTABLE_FL, as in <linux/fs.h> on 64-bit Linux.
    private static let getFlags: UInt = 0x8008_6601
    private static let setFlags: UInt = 0x4008_6602
    private static let immutableFlag: Int = 0x10

    private static func setImmutable(_ path: String, _ on: Bool) {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var flags = 0
        guard ioctl(fd, getFlags, &flags) == 0 else { return }
        flags = on ? flags | immutableFlag : flags & ~immutableFlag
        _ = ioctl(fd, setFlags, &flags)
    }
}
