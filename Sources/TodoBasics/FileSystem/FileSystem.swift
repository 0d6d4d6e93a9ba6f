/// The only way the store touches files.
///
/// Primitives are small on purpose: an atomic write is composed of them (`AtomicFile`), so a
/// fault-injecting file system can stop the program between any two steps and tests can check that
/// the store still opens. Paths are absolute strings.
public protocol FileSystem: Sendable {
    /// The file's bytes, or nil when it does not exist.
    func readFile(_ path: String) throws(FileSystemError) -> [UInt8]?
    /// Creates or truncates `path`, writes `bytes`, and fsyncs the file when `sync` is true.
    func writeFile(_ path: String, _ bytes: [UInt8], sync: Bool) throws(FileSystemError)
    /// rename(2): atomically replaces `to`.
    func rename(_ from: String, to: String) throws(FileSystemError)
    /// Removes a file; a missing file is not an error.
    func removeFile(_ path: String) throws(FileSystemError)
    /// rmdir(2): removes an empty directory; a missing one is not an error.
    func removeDirectory(_ path: String) throws(FileSystemError)
    /// Names in a directory (no `.`/`..`), or nil when it does not exist.
    func listDirectory(_ path: String) throws(FileSystemError) -> [String]?
    /// The names of a directory one at a time, while `body` returns true: a folder of a million
    /// items is walked without holding its listing. False when the directory does not exist.
    func scanDirectory(_ path: String, _ body: (String) -> Bool) throws(FileSystemError) -> Bool
    /// mkdir -p.
    func createDirectory(_ path: String) throws(FileSystemError)
    /// fsync of a directory, so renames and removals in it survive a power loss.
    func syncDirectory(_ path: String) throws(FileSystemError)
    /// syncfs(2) of the file system holding `path`: one call makes every earlier write durable.
    /// Cheaper than an fsync per file once a commit writes more than a few files.
    func syncFileSystem(_ path: String) throws(FileSystemError)
    func fileExists(_ path: String) -> Bool
    func isDirectory(_ path: String) -> Bool
    /// Whether `path` itself is a symbolic link (not followed). `todo doctor` reports them: an
    /// atomic write replaces a link with a file, so the store and the link's target part ways.
    func isSymbolicLink(_ path: String) -> Bool
    /// The file's stat(2) stamp, or nil when it is not a regular file or this file system cannot
    /// say (then callers read the file). See `FileStamp`.
    func stamp(_ path: String) -> FileStamp?
    /// The stamps of these names in one folder, in order: as `stamp`, but cheaper for many.
    func stamps(in directory: String, names: [String]) -> [FileStamp?]
    /// A folder's stat(2) stamp, or nil when it is not a folder or this file system cannot say.
    /// Every name added to or removed from a folder moves its mtime and ctime, so an unchanged
    /// stamp says its listing is unchanged (the index of pending operations relies on it).
    func directoryStamp(_ path: String) -> FileStamp?
    /// The bytes of each name in one folder, in order (nil: missing), as `readFile` gives them.
    /// The folder is opened once and each name looked up in it alone, not walked from the root:
    /// a push reads thousands of files in two folders.
    func readFiles(in directory: String, names: [String]) throws(FileSystemError) -> [[UInt8]?]
    /// Writes each file of one folder in place (`writeFile` without fsync), or removes it when its
    /// content is nil, the folder opened once. Only for files a journal holds (`Recovery`).
    func writeFiles(in directory: String, _ files: [(name: String, content: [UInt8]?)]) throws(FileSystemError)
    /// Whether each name exists in one folder, the folder opened once (as `fileExists`).
    func existing(in directory: String, names: [String]) -> [Bool]
}

extension FileSystem {
    /// One call per file: file systems that keep no real folders (views, fault injection, which
    /// count and fail each file's call).
    public func readFiles(in directory: String, names: [String]) throws(FileSystemError) -> [[UInt8]?] {
        var files: [[UInt8]?] = []
        files.reserveCapacity(names.count)
        for name in names { files.append(try readFile(directory.appendingPath(name))) }
        return files
    }

    public func writeFiles(in directory: String, _ files: [(name: String, content: [UInt8]?)]) throws(FileSystemError) {
        for (name, content) in files {
            let path = directory.appendingPath(name)
            if let content { try writeFile(path, content, sync: false) } else { try removeFile(path) }
        }
    }

    public func existing(in directory: String, names: [String]) -> [Bool] {
        names.map { fileExists(directory.appendingPath($0)) }
    }
}

extension FileSystem {
    /// Whether a folder holds a name that `matches`, reading only until the first one: a pull
    /// asks whether a table's items folder holds any item without listing a million names.
    /// False when the folder does not exist.
    public func containsEntry(_ path: String, where matches: (String) -> Bool) throws(FileSystemError) -> Bool {
        var contains = false
        _ = try scanDirectory(path) { name in
            contains = matches(name)
            return !contains
        }
        return contains
    }
}

extension FileSystem {
    /// Through `listDirectory`: file systems that keep no real folders (views, fault injection).
    public func scanDirectory(_ path: String, _ body: (String) -> Bool) throws(FileSystemError) -> Bool {
        guard let names = try listDirectory(path) else { return false }
        for name in names where !body(name) { break }
        return true
    }
}

/// A failed file-system call, with the path and the errno text: enough for a message that names
/// the file and says what went wrong.
public struct FileSystemError: Error, Equatable, Sendable, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var code: Int32
    public var reason: String

    public init(operation: String, path: String, code: Int32, reason: String) {
        self.operation = operation
        self.path = path
        self.code = code
        self.reason = reason
    }

    public var description: String { "cannot \(operation) '\(path)': \(reason)" }
}

extension String {
    /// The parent directory of an absolute path ("/a/b" -> "/a").
    /// (Searched in the contiguous UTF-8 bytes: a commit asks this two or three times for every
    /// file it writes, and a search through `utf8`'s indices cost ~2,000 instructions a path.)
    public var parentPath: String {
        var text = self  // withUTF8 is mutating; a native string is not copied
        return text.withUTF8 { bytes in
            guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return "." }
            return slash == 0 ? "/" : String(decoding: UnsafeBufferPointer(rebasing: bytes[..<slash]), as: UTF8.self)
        }
    }

    /// The last path component.
    public var lastPathComponent: String {
        var text = self
        return text.withUTF8 { bytes in
            guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return self }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[(slash + 1)...]), as: UTF8.self)
        }
    }

    public func appendingPath(_ component: String) -> String {
        hasSuffix("/") ? self + component : self + "/" + component
    }
}
