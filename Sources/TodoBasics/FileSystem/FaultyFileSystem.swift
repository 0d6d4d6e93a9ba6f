import Synchronization

/// Wraps a file system and fails the n-th mutating call, as a crash would stop a command there.
///
/// Tests run a command with `failOnCall: n` for every n until the command succeeds, then reopen the
/// store with the real file system and check it is valid and either before or after the command.
/// Lives in the library (not the tests) so the CLI's end-to-end crash tests can use it too.
public final class FaultyFileSystem: FileSystem {
    public let base: any FileSystem
    private let failOnCall: Int
    private let calls = Mutex(0)

    public init(base: any FileSystem, failOnCall: Int) {
        self.base = base
        self.failOnCall = failOnCall
    }

    /// Mutating calls made so far (including the failing one).
    public var callCount: Int { calls.withLock { $0 } }

    private func step(_ operation: String, _ path: String) throws(FileSystemError) {
        let n = calls.withLock { count -> Int in
            count += 1
            return count
        }
        if n == failOnCall {
            throw FileSystemError(operation: operation, path: path, code: 5, reason: "injected fault (call \(n))")
        }
    }

    public func readFile(_ path: String) throws(FileSystemError) -> [UInt8]? { try base.readFile(path) }

    public func writeFile(_ path: String, _ bytes: [UInt8], sync: Bool) throws(FileSystemError) {
        do {
            try step("write", path)
        } catch {
            // A crash in the middle of a write leaves a torn file behind.
            try? base.writeFile(path, Array(bytes.prefix(bytes.count / 2)), sync: false)
            throw error
        }
        try base.writeFile(path, bytes, sync: sync)
    }

    public func rename(_ from: String, to: String) throws(FileSystemError) {
        try step("rename", from)
        try base.rename(from, to: to)
    }

    public func removeFile(_ path: String) throws(FileSystemError) {
        try step("remove", path)
        try base.removeFile(path)
    }

    public func listDirectory(_ path: String) throws(FileSystemError) -> [String]? { try base.listDirectory(path) }

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
}
