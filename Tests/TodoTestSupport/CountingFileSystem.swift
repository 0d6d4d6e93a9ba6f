import Synchronization
import TodoBasics

/// The local file system, recording every read and folder listing by path: complexity guards
/// count calls through it instead of timing anything (issue 21 item 6).
public final class CountingFileSystem: FileSystem {
    public let base = LocalFileSystem()
    private let log = Mutex<(reads: [String], lists: [String])>(([], []))

    public init() {}

    /// Paths read, in order.
    public var reads: [String] { log.withLock { $0.reads } }
    /// Folders listed, in order.
    public var lists: [String] { log.withLock { $0.lists } }
    public func reads(containing part: String) -> [String] { reads.filter { $0.contains(part) } }
    public func lists(endingWith suffix: String) -> Int { lists.filter { $0.hasSuffix(suffix) }.count }
    public func reset() {
        log.withLock { $0 = ([], []) }
        journalLog.withLock { $0 = [] }
    }
    /// The bytes of every journal written (each commit writes one), in order.
    public var journals: [[UInt8]] { journalLog.withLock { $0 } }
    private let journalLog = Mutex<[[UInt8]]>([])

    public func readFile(_ path: String) throws(FileSystemError) -> [UInt8]? {
        log.withLock { $0.reads.append(path) }
        return try base.readFile(path)
    }
    public func listDirectory(_ path: String) throws(FileSystemError) -> [String]? {
        log.withLock { $0.lists.append(path) }
        return try base.listDirectory(path)
    }
    public func writeFile(_ path: String, _ bytes: [UInt8], sync: Bool) throws(FileSystemError) {
        if path.hasSuffix("/.journal.json.tmp") { journalLog.withLock { $0.append(bytes) } }
        try base.writeFile(path, bytes, sync: sync)
    }
    public func rename(_ from: String, to: String) throws(FileSystemError) { try base.rename(from, to: to) }
    public func removeFile(_ path: String) throws(FileSystemError) { try base.removeFile(path) }
    public func createDirectory(_ path: String) throws(FileSystemError) { try base.createDirectory(path) }
    public func removeDirectory(_ path: String) throws(FileSystemError) { try base.removeDirectory(path) }
    public func syncDirectory(_ path: String) throws(FileSystemError) { try base.syncDirectory(path) }
    public func syncFileSystem(_ path: String) throws(FileSystemError) { try base.syncFileSystem(path) }
    public func fileExists(_ path: String) -> Bool { base.fileExists(path) }
    public func isDirectory(_ path: String) -> Bool { base.isDirectory(path) }
    public func isSymbolicLink(_ path: String) -> Bool { base.isSymbolicLink(path) }
    public func stamp(_ path: String) -> FileStamp? { base.stamp(path) }
    public func directoryStamp(_ path: String) -> FileStamp? { base.directoryStamp(path) }
    public func stamps(in directory: String, names: [String]) -> [FileStamp?] { base.stamps(in: directory, names: names) }
}
