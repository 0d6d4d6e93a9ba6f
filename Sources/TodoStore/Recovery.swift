import TodoBasics
import TodoModel

/// Completes an interrupted commit. Runs under the lock every time a writer opens the store.
///
/// Only two kinds of leftovers exist: a journal temp file (the command died before its commit
/// point: it did not happen) and a journal (it happened: apply it). Then an open removal of
/// item files (`ItemRemoval`) is finished, or the lists of one that never happened are deleted. Target temp files only exist
/// while a journal does, so their names come from the journal and no large folder is listed.
enum Recovery {
    static func run(_ store: Store) throws(StoreError) {
        try applyJournal(store)
        // A purge or table rm whose item files are not all removed yet (`ItemRemoval`).
        try ItemRemoval.finish(store)
    }

    private static func applyJournal(_ store: Store) throws(StoreError) {
        let journalPath = store.layout.absolute(StoreLayout.journalFile)
        do { try store.fs.removeFile(AtomicFile.tempPath(for: journalPath)) } catch { throw .io(error) }
        guard let journal = try store.record(StoreLayout.journalFile) else { return }
        let staged: [String: JSONValue?]
        do {
            staged = try parseJournal(journal)
        } catch {
            throw .corrupt(path: store.displayPath(StoreLayout.journalFile), reason: error.message)
        }
        // A journal left by an older build, which wrote each file beside and renamed it: its
        // temp files go (this build writes the files in place).
        for path in staged.keys {
            do { try store.fs.removeFile(AtomicFile.tempPath(for: store.layout.absolute(path))) } catch { throw .unfinished(error) }
        }
        try apply(staged.mapValues { $0.map { $0.canonicalBytes() } }, in: store)
    }

    static func parseJournal(_ journal: JSONValue) throws(RecordError) -> [String: JSONValue?] {
        let r = try RecordReader(journal)
        _ = try FormatVersion.read(r, current: 1)  // the journal's own format
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

    /// Above this many files a commit writes them on several threads (`writeInPlace`).
    static let bulkThreshold = 16

    /// Writes every staged file, makes them durable, then drops the journal. Runs after the commit
    /// point, so a failure is `.unfinished`: the journal stays and the change still happens.
    ///
    /// Every commit, small (a local command) or large (a pull page, a push batch), writes each
    /// file in place (`writeInPlace`: no temp file, no fsync of its own), then calls syncfs once,
    /// and only then removes the journal. That is safe because the journal on disk holds every
    /// file's bytes until syncfs has returned: a crash before it replays the whole commit, and
    /// lock-free readers never take a file the journal holds (`consistentRead`), so a
    /// half-written file is never read. Why for a local change too: its 8 to 10 files cost 17
    /// fsyncs and 11 renames with a temp file, an fsync and a rename each (and each rename frees
    /// the old file's blocks: a discard on a `discard` mount); measured here, writing them and
    /// one syncfs takes half that wall time.
    static func apply(_ staged: [String: [UInt8]?], in store: Store) throws(StoreError) {
        do throws(FileSystemError) {
            try writeInPlace(staged, in: store)
            try store.fs.syncFileSystem(store.layout.root)
            try store.fs.removeFile(store.layout.absolute(StoreLayout.journalFile))
        } catch {
            throw .unfinished(error)
        }
    }

    /// Writes each file in place, with no temp file and no fsync: only for files a journal on
    /// disk holds until a later syncfs has returned. Above `bulkThreshold` files, on 8 or 16
    /// threads (`threads(removing:)`). `state.json` is the exception: written beside and renamed
    /// into place, as readers read it before they look for a journal (`consistentRead`).
    static func writeInPlace(_ staged: [String: [UInt8]?], in store: Store) throws(FileSystemError) {
        let fs = store.fs
        try createDirectories(for: staged.keys, in: store)
        let jobs = staged.keys.sorted().filter { $0 != StoreLayout.stateFile }.map { path in (store.layout.absolute(path), staged[path]!) }
        if jobs.count <= bulkThreshold {
            for run in byFolder(jobs) { try fs.writeFiles(in: run.folder, run.files) }
        } else {
            let threads = Self.threads(removing: staged.values.contains { $0 == nil })
            let failures = WorkerPool.map(dealt(jobs, count: threads), width: threads) { chunk -> FileSystemError? in
                do throws(FileSystemError) {
                    for run in byFolder(chunk) { try fs.writeFiles(in: run.folder, run.files) }
                    return nil
                } catch {
                    return error
                }
            }
            if let failure = failures.compactMap({ $0 }).first { throw failure }
        }
        if case .some(let state?) = staged[StoreLayout.stateFile] {
            try AtomicFile.write(state, to: store.layout.absolute(StoreLayout.stateFile), in: fs, sync: false)
        }
    }

    /// Creates the folders the files go into (syncfs makes them durable with the files).
    private static func createDirectories(for paths: Dictionary<String, [UInt8]?>.Keys, in store: Store) throws(FileSystemError) {
        let fs = store.fs
        var seen = Set<String>()
        for path in paths {
            let dir = store.layout.absolute(path).parentPath
            if !seen.insert(dir).inserted { continue }
            if !fs.isDirectory(dir) { try fs.createDirectory(dir) }
        }
    }

    /// A hand's files (sorted by path) in runs by folder, so each thread opens each folder once
    /// and names its files in it (`FileSystem.writeFiles`) instead of walking every whole path.
    static func byFolder(_ jobs: [(String, [UInt8]?)]) -> [(folder: String, files: [(name: String, content: [UInt8]?)])] {
        var runs: [(folder: String, files: [(name: String, content: [UInt8]?)])] = []
        for (absolute, content) in jobs {
            let folder = absolute.parentPath, name = absolute.lastPathComponent
            if let last = runs.indices.last, runs[last].folder == folder {
                runs[last].files.append((name, content))
            } else {
                runs.append((folder, [(name, content)]))
            }
        }
        return runs
    }

    /// Threads for a bulk commit. A removal mostly waits for the disk's discard, so a commit with
    /// removals (a push batch) overlaps more of them on 16 threads (measured: 10-15% faster push
    /// batches than 8). A commit of new files (a pull page) stays on the 8 it was measured with:
    /// creations in one folder queue on its lock.
    static func threads(removing: Bool) -> Int { removing ? 16 : 8 }

    /// `items` dealt out round-robin into `count` hands. A commit's paths are sorted, so runs
    /// would give all removals (each waits for the disk's discard) to the first few threads.
    static func dealt<T: Sendable>(_ items: [T], count: Int) -> [[T]] {
        var hands = [[T]](repeating: [], count: max(1, min(count, items.count)))
        for (index, item) in items.enumerated() { hands[index % hands.count].append(item) }
        return hands
    }

    /// `items` cut into `count` runs of about equal length, in order (work for `count` threads).
    static func chunks<T: Sendable>(_ items: [T], count: Int) -> [[T]] {
        let size = max(1, (items.count + count - 1) / count)
        return stride(from: 0, to: items.count, by: size).map { Array(items[$0..<min($0 + size, items.count)]) }
    }
}
