#if canImport(Glibc)
import Glibc
#endif
import TodoBasics
import TodoModel

/// The store's files as they are once a journal's commit is applied: the journal's files, and
/// the folder's files for every other path. Read-only.
///
/// A reader that finds a live writer's journal reads through this view (`consistentRead`):
/// while a journal is on disk, the writer only writes files that the journal holds, so every
/// other file is stable, and the view is exactly the state after that commit. Why: a push or
/// pull keeps a journal on disk from its first commit to its last (`CommitSeries`), and
/// `todo status` should not wait for it.
struct JournalView: FileSystem {
    let base: any FileSystem
    /// Absolute path -> the file's bytes, or nil for a removal.
    private let writes: [String: [UInt8]?]
    /// Absolute folder -> names the journal adds to it or removes from it.
    private let added: [String: Set<String>]
    private let removed: [String: Set<String>]

    init(base: any FileSystem, layout: StoreLayout, journal: JSONValue) throws(RecordError) {
        self.base = base
        var writes: [String: [UInt8]?] = [:]
        var added: [String: Set<String>] = [:]
        var removed: [String: Set<String>] = [:]
        for (relative, content) in try Recovery.parseJournal(journal) {
            let path = layout.absolute(relative)
            writes[path] = .some(content.map { $0.canonicalBytes() })
            if content == nil {
                removed[path.parentPath, default: []].insert(path.lastPathComponent)
                continue
            }
            // New files may sit in new folders (a table's first item): list those up the tree.
            var child = path
            while child.utf8.count > layout.root.utf8.count {
                added[child.parentPath, default: []].insert(child.lastPathComponent)
                child = child.parentPath
            }
        }
        self.writes = writes
        self.added = added
        self.removed = removed
    }

    func readFile(_ path: String) throws(FileSystemError) -> [UInt8]? {
        if let staged = writes[path] { return staged }
        return try base.readFile(path)
    }

    func listDirectory(_ path: String) throws(FileSystemError) -> [String]? {
        let names = try base.listDirectory(path)
        guard added[path] != nil || removed[path] != nil else { return names }
        var result = Set(names ?? []).subtracting(removed[path] ?? [])
        result.formUnion(added[path] ?? [])
        return result.sorted()
    }

    func fileExists(_ path: String) -> Bool {
        if let staged = writes[path] { return staged != nil }
        return base.fileExists(path) || added[path] != nil
    }

    func isDirectory(_ path: String) -> Bool { added[path] != nil || base.isDirectory(path) }
    func isSymbolicLink(_ path: String) -> Bool { writes[path] == nil && base.isSymbolicLink(path) }
    /// A file the journal rewrites has no stamp yet: read it.
    func stamp(_ path: String) -> FileStamp? { writes[path] == nil ? base.stamp(path) : nil }
    /// The journal may add or remove names that no folder stamp shows: never vouch for a listing.
    func directoryStamp(_ path: String) -> FileStamp? { nil }
    func stamps(in directory: String, names: [String]) -> [FileStamp?] {
        zip(names, base.stamps(in: directory, names: names)).map { writes[directory.appendingPath($0)] == nil ? $1 : nil }
    }

    func writeFile(_ path: String, _ bytes: [UInt8], sync: Bool) throws(FileSystemError) { throw readOnly("write", path) }
    func rename(_ from: String, to: String) throws(FileSystemError) { throw readOnly("rename", from) }
    func removeFile(_ path: String) throws(FileSystemError) { throw readOnly("remove", path) }
    func removeDirectory(_ path: String) throws(FileSystemError) { throw readOnly("remove directory", path) }
    func createDirectory(_ path: String) throws(FileSystemError) { throw readOnly("create directory", path) }
    func syncDirectory(_ path: String) throws(FileSystemError) { throw readOnly("fsync", path) }
    func syncFileSystem(_ path: String) throws(FileSystemError) { throw readOnly("syncfs", path) }

    private func readOnly(_ operation: String, _ path: String) -> FileSystemError {
        FileSystemError(operation: operation, path: path, code: EROFS, reason: "a reader's view of a commit is read-only")
    }
}
