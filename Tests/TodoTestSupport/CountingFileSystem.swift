import Synchronization
import TodoBasics

/// The local file system, recording every call by kind and path: complexity guards count calls
/// through it instead of timing anything (issue 21 item 6, issue 16 item 7).
public final class CountingFileSystem: FileSystem {
    /// One call. `walksPath`: the kernel looks the whole path up from the root (or the working
    /// folder); false for a name looked up in a folder opened once (`readFiles` and the like).
    public struct Call: Sendable {
        public var kind: Kind
        public var path: String
        public var walksPath: Bool
    }

    public enum Kind: String, Sendable, CaseIterable {
        case read, write, remove, exists, stat, list, rename, openFolder = "open folder"
        case createDirectory = "create directory", removeDirectory = "remove directory"
        case syncDirectory = "fsync directory", syncFileSystem = "syncfs"
        /// A write with `sync: true` also notes this: the file's own fsync.
        case syncFile = "fsync file"
    }

    public let base = LocalFileSystem()
    private let log = Mutex<[Call]>([])

    public init() {}

    public var calls: [Call] { log.withLock { $0 } }
    /// Paths read, in order.
    public var reads: [String] { calls.filter { $0.kind == .read }.map(\.path) }
    /// Folders listed, in order.
    public var lists: [String] { calls.filter { $0.kind == .list }.map(\.path) }
    public func reads(containing part: String) -> [String] { reads.filter { $0.contains(part) } }
    public func lists(endingWith suffix: String) -> Int { lists.filter { $0.hasSuffix(suffix) }.count }
    /// Calls of `kind` on paths containing `part`.
    public func count(_ kind: Kind, containing part: String = "") -> Int {
        calls.filter { $0.kind == kind && (part.isEmpty || $0.path.contains(part)) }.count
    }
    /// Calls on paths containing `part` that walk the whole path.
    public func pathWalks(containing part: String) -> Int {
        calls.filter { $0.walksPath && $0.path.contains(part) }.count
    }
    public func reset() {
        log.withLock { $0 = [] }
        journalLog.withLock { $0 = [] }
    }
    /// The bytes of every journal written (each commit writes one), in order.
    public var journals: [[UInt8]] { journalLog.withLock { $0 } }
    private let journalLog = Mutex<[[UInt8]]>([])

    private func note(_ kind: Kind, _ path: String, walksPath: Bool = true) {
        log.withLock { $0.append(Call(kind: kind, path: path, walksPath: walksPath)) }
    }
    private func note(_ kind: Kind, in directory: String, _ names: [String]) {
        log.withLock { calls in
            calls.append(Call(kind: .openFolder, path: directory, walksPath: true))
            for name in names { calls.append(Call(kind: kind, path: directory.appendingPath(name), walksPath: false)) }
        }
    }

    public func readFile(_ path: String) throws(FileSystemError) -> [UInt8]? {
        note(.read, path)
        return try base.readFile(path)
    }
    public func readFiles(in directory: String, names: [String]) throws(FileSystemError) -> [[UInt8]?] {
        note(.read, in: directory, names)
        return try base.readFiles(in: directory, names: names)
    }
    public func listDirectory(_ path: String) throws(FileSystemError) -> [String]? {
        note(.list, path)
        return try base.listDirectory(path)
    }
    public func writeFile(_ path: String, _ bytes: [UInt8], sync: Bool) throws(FileSystemError) {
        note(.write, path)
        if sync { note(.syncFile, path) }
        if path.hasSuffix("/.journal.json.tmp") { journalLog.withLock { $0.append(bytes) } }
        try base.writeFile(path, bytes, sync: sync)
    }
    public func writeFiles(in directory: String, _ files: [(name: String, content: [UInt8]?)]) throws(FileSystemError) {
        log.withLock { calls in
            calls.append(Call(kind: .openFolder, path: directory, walksPath: true))
            for file in files {
                calls.append(Call(kind: file.content == nil ? .remove : .write, path: directory.appendingPath(file.name), walksPath: false))
            }
        }
        try base.writeFiles(in: directory, files)
    }
    public func rename(_ from: String, to: String) throws(FileSystemError) {
        note(.rename, to)
        try base.rename(from, to: to)
    }
    public func removeFile(_ path: String) throws(FileSystemError) {
        note(.remove, path)
        try base.removeFile(path)
    }
    public func createDirectory(_ path: String) throws(FileSystemError) {
        note(.createDirectory, path)
        try base.createDirectory(path)
    }
    public func removeDirectory(_ path: String) throws(FileSystemError) {
        note(.removeDirectory, path)
        try base.removeDirectory(path)
    }
    public func syncDirectory(_ path: String) throws(FileSystemError) {
        note(.syncDirectory, path)
        try base.syncDirectory(path)
    }
    public func syncFileSystem(_ path: String) throws(FileSystemError) {
        note(.syncFileSystem, path)
        try base.syncFileSystem(path)
    }
    public func fileExists(_ path: String) -> Bool {
        note(.exists, path)
        return base.fileExists(path)
    }
    public func existing(in directory: String, names: [String]) -> [Bool] {
        note(.exists, in: directory, names)
        return base.existing(in: directory, names: names)
    }
    public func isDirectory(_ path: String) -> Bool {
        note(.stat, path)
        return base.isDirectory(path)
    }
    public func isSymbolicLink(_ path: String) -> Bool {
        note(.stat, path)
        return base.isSymbolicLink(path)
    }
    public func stamp(_ path: String) -> FileStamp? {
        note(.stat, path)
        return base.stamp(path)
    }
    public func directoryStamp(_ path: String) -> FileStamp? {
        note(.stat, path)
        return base.directoryStamp(path)
    }
    public func stamps(in directory: String, names: [String]) -> [FileStamp?] {
        note(.stat, in: directory, names)
        return base.stamps(in: directory, names: names)
    }
}
