import Synchronization

/// Wraps a file system and fails chosen calls with an errno, as a full disk, exhausted inodes, a
/// failing disk, an immutable file or a crash would.
///
/// Calls are counted from 1: every mutating call, and reads too when `countsReads` is set. Which
/// calls fail:
/// - `.once(n)`: only call n (an error the command sees and survives: disk full for a moment);
/// - `.from(n)`: call n and every later one (the disk went bad, or the process died there);
/// - `.matching(p)`: every call whose operation and path satisfy `p` (an immutable file).
/// Tests run a command for every n until it succeeds without reaching n, then check the store
/// with the real file system. Lives in the library (not the tests) so the CLI's end-to-end
/// tests can use it too.
public final class FaultyFileSystem: FileSystem {
    public enum Plan: Sendable {
        case once(Int)
        case from(Int)
        case matching(@Sendable (_ operation: String, _ path: String) -> Bool)
    }

    public let base: any FileSystem
    private let plan: Plan
    private let code: Int32
    private let countsReads: Bool
    private let calls = Mutex(0)

    public init(base: any FileSystem, plan: Plan, code: Int32 = 5, countsReads: Bool = false) {
        self.base = base
        self.plan = plan
        self.code = code
        self.countsReads = countsReads
    }

    /// Fails the n-th mutating call with EIO (the original campaign's form).
    public convenience init(base: any FileSystem, failOnCall: Int) {
        self.init(base: base, plan: .once(failOnCall))
    }

    /// Calls counted so far (including a failing one).
    public var callCount: Int { calls.withLock { $0 } }
    /// The path of the last call that failed: a test tells a fault in a cache, which a command
    /// survives by design, from one in its records.
    public var failedPath: String? { failed.withLock { $0 } }
    private let failed = Mutex<String?>(nil)

    private func step(_ operation: String, _ path: String, counted: Bool = true) throws(FileSystemError) {
        guard counted else { return }
        let n = calls.withLock { count -> Int in
            count += 1
            return count
        }
        let fails: Bool
        switch plan {
        case .once(let k): fails = n == k
        case .from(let k): fails = n >= k
        case .matching(let p): fails = p(operation, path)
        }
        if fails {
            failed.withLock { $0 = path }
            throw FileSystemError(operation: operation, path: path, code: code, reason: "injected fault (call \(n), errno \(code))")
        }
    }

    public func readFile(_ path: String) throws(FileSystemError) -> [UInt8]? {
        try step("read", path, counted: countsReads)
        return try base.readFile(path)
    }

    public func writeFile(_ path: String, _ bytes: [UInt8], sync: Bool) throws(FileSystemError) {
        do {
            try step("write", path)
        } catch {
            // A write that stops in the middle leaves a torn file behind.
            try? base.writeFile(path, Array(bytes.prefix(bytes.count / 2)), sync: false)
            throw error
        }
        try base.writeFile(path, bytes, sync: sync)
    }

    public func rename(_ from: String, to: String) throws(FileSystemError) {
        try step("rename", to)
        try base.rename(from, to: to)
    }

    public func removeFile(_ path: String) throws(FileSystemError) {
        try step("remove", path)
        try base.removeFile(path)
    }

    public func removeDirectory(_ path: String) throws(FileSystemError) {
        try step("remove directory", path)
        try base.removeDirectory(path)
    }

    public func listDirectory(_ path: String) throws(FileSystemError) -> [String]? {
        try step("list", path, counted: countsReads)
        return try base.listDirectory(path)
    }

    public func createDirectory(_ path: String) throws(FileSystemError) {
        try step("create directory", path)
        try base.createDirectory(path)
    }

    public func syncDirectory(_ path: String) throws(FileSystemError) {
        try step("fsync", path)
        try base.syncDirectory(path)
    }

    public func syncFileSystem(_ path: String) throws(FileSystemError) {
        try step("syncfs", path)
        try base.syncFileSystem(path)
    }

    public func fileExists(_ path: String) -> Bool { base.fileExists(path) }
    public func isDirectory(_ path: String) -> Bool { base.isDirectory(path) }
    public func isSymbolicLink(_ path: String) -> Bool { base.isSymbolicLink(path) }
    public func stamp(_ path: String) -> FileStamp? { base.stamp(path) }
    public func directoryStamp(_ path: String) -> FileStamp? { base.directoryStamp(path) }
    public func stamps(in directory: String, names: [String]) -> [FileStamp?] { base.stamps(in: directory, names: names) }
}
