import TodoBasics
import TodoModel

/// Completes an interrupted commit. Runs under the lock every time a writer opens the store.
///
/// Only two kinds of leftovers exist: a journal temp file (the command died before its commit
/// point: it did not happen) and a journal (it happened: apply it). Target temp files only exist
/// while a journal does, so their names come from the journal and no large folder is listed.
enum Recovery {
    static func run(_ store: Store) throws(StoreError) {
        let journalPath = store.layout.absolute(StoreLayout.journalFile)
        do { try store.fs.removeFile(AtomicFile.tempPath(for: journalPath)) } catch { throw .io(error) }
        guard let journal = try store.record(StoreLayout.journalFile) else { return }
        let staged: [String: JSONValue?]
        do {
            staged = try parseJournal(journal)
        } catch {
            throw .corrupt(path: store.displayPath(StoreLayout.journalFile), reason: error.message)
        }
        try apply(staged, in: store)
    }

    static func parseJournal(_ journal: JSONValue) throws(RecordError) -> [String: JSONValue?] {
        let r = try RecordReader(journal)
        try r.checkFormat()
        guard let writes = r.object["writes"]?.arrayValue else { throw RecordError("\"writes\" must be an array") }
        var staged: [String: JSONValue?] = [:]
        for entry in writes {
            let e = try RecordReader(entry)
            let path = try e.string("path")
            guard isSafeRelativePath(path) else { throw RecordError("unsafe path \"\(path)\" in \"writes\"") }
            let content = e.object["content"] ?? .null
            staged[path] = content.isNull ? .some(nil) : .some(content)
        }
        return staged
    }

    /// Journal paths are ours, but the journal is a file a user could edit: never follow one out
    /// of the store.
    static func isSafeRelativePath(_ path: String) -> Bool {
        !path.isEmpty && !path.hasPrefix("/") && !path.split(separator: "/", omittingEmptySubsequences: false)
            .contains { $0.isEmpty || $0 == "." || $0 == ".." } && !path.utf8.contains(0)
    }

    /// Writes every staged file, fsyncs each touched folder once, then drops the journal.
    static func apply(_ staged: [String: JSONValue?], in store: Store) throws(StoreError) {
        let fs = store.fs
        var directories = Set<String>()
        do {
            for path in staged.keys.sorted() {
                let absolute = store.layout.absolute(path)
                let dir = absolute.parentPath
                if !fs.isDirectory(dir) {
                    // New folders (a table's first item) must be made durable in their parents too.
                    try fs.createDirectory(dir)
                    directories.formUnion([dir.parentPath, dir.parentPath.parentPath])
                }
                directories.insert(dir)
                if let content = staged[path]! {
                    try AtomicFile.write(content.canonicalBytes(), to: absolute, in: fs)
                } else {
                    try fs.removeFile(absolute)
                    try fs.removeFile(AtomicFile.tempPath(for: absolute))
                }
            }
            for dir in directories.sorted() where dir.hasPrefix(store.layout.root) && fs.isDirectory(dir) {
                try fs.syncDirectory(dir)
            }
            try fs.removeFile(store.layout.absolute(StoreLayout.journalFile))
        } catch {
            throw .io(error)
        }
    }
}
