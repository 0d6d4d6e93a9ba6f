#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import TodoBasics

/// The running server's view of `users.json`: read at start-up, and read again whenever the file
/// has changed (its inode, size or modification time differ) when a request brings a token.
///
/// So `todo-server user add`, `user token` and `user rm` take effect with the next request, without
/// a restart: a removed user's token stops working at once. The check is one stat(2) per request
/// that carries `X-ZUMO-AUTH`. A file that cannot be read or decoded is not guessed around: token
/// requests are answered 503 until it is fixed (`Lookup.unavailable`), rather than served with
/// users that may have been removed.
public final class UserDirectory: Sendable {
    public let directory: String

    private struct Loaded {
        var stamp: FileStamp?
        var result: Result<UsersFile, UsersFile.Problem>
    }

    private let state: Mutex<Loaded>

    /// Reads the users file now; a damaged one is an error here (the server does not start).
    public init(directory: String) throws(UsersFile.Problem) {
        self.directory = directory
        let path = UsersFile.path(in: directory)
        let stamp = FileStamp(path)
        let users = try UsersFile.read(directory: directory)
        state = Mutex(Loaded(stamp: stamp, result: .success(users)))
    }

    public enum Lookup: Equatable {
        case user(String)
        case unknown
        /// The users file cannot be read: what is wrong with it.
        case unavailable(String)
    }

    /// Whose token `token` is.
    func lookup(_ token: String) -> Lookup {
        let result = current()
        switch result {
        case .failure(let problem): return .unavailable(problem.message)
        case .success(let users): return users.user(withToken: token).map { .user($0) } ?? .unknown
        }
    }

    /// The users as the file holds them now.
    private func current() -> Result<UsersFile, UsersFile.Problem> {
        let path = UsersFile.path(in: directory)
        let stamp = FileStamp(path)
        if let cached = state.withLock({ $0.stamp == stamp ? $0.result : nil }) { return cached }
        let result = Result { () throws(UsersFile.Problem) in try UsersFile.read(directory: directory) }
        state.withLock { $0 = Loaded(stamp: stamp, result: result) }
        return result
    }
}

/// What identifies one version of a file that is replaced by rename: a new inode each time, and
/// size and modification time for edits in place.
struct FileStamp: Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modifiedSeconds: Int64
    var modifiedNanoseconds: Int64

    /// Nil when there is no file (no users).
    init?(_ path: String) {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        modifiedSeconds = Int64(st.st_mtim.tv_sec)
        modifiedNanoseconds = Int64(st.st_mtim.tv_nsec)
    }
}
