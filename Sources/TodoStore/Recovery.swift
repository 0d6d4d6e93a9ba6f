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

    /// Above this many files a commit writes them on several threads and makes them durable with
    /// one syncfs (`writeInPlace`); below it, each file is fsynced on its own.
    static let bulkThreshold = 16

    /// Writes every staged file in place, makes them durable, then drops the journal. Runs after
    /// the commit point, so a failure is `.unfinished`: the journal stays and the change still
    /// happens.
    ///
    /// No file needs a temp file and a rename of its own: the journal on disk holds every file's
    /// bytes until they are durable, so a crash before that replays the whole commit, and
    /// lock-free readers never take a file the journal holds (`consistentRead`), so a
    /// half-written file is never read. `state.json` is the exception (`writeState`).
    /// - Large commits (a pull page, a push batch): written on 8 or 16 threads, then one syncfs.
    /// - Small ones (a local command): each file written and fsynced in place, then only the
    ///   folders whose names changed are fsynced. Not syncfs: it writes back every dirty file of
    ///   the file system, and on a machine whose disk others were busy with, an `edit` then took
    ///   0.6 s and 66 ms of CPU (medians). A rename per file cost more than its fsync: it frees
    ///   the old file's blocks, a discard on a `discard` mount.
    static func apply(_ staged: [String: [UInt8]?], in store: Store) throws(StoreError) {
        do throws(FileSystemError) {
            if staged.count > bulkThreshold {
                try writeInPlace(staged, in: store)
                try store.fs.syncFileSystem(store.layout.root)
            } else {
                try writeEachDurably(staged, in: store)
            }
            try store.fs.removeFile(store.layout.absolute(StoreLayout.journalFile))
        } catch {
            throw .unfinished(error)
        }
    }

    /// A small commit's files, each written in place with its fsync (removals: unlinked), then an
    /// fsync of each folder that gained or lost a name.
    private static func writeEachDurably(_ staged: [String: [UInt8]?], in store: Store) throws(FileSystemError) {
        let fs = store.fs
        var changedFolders = try createDirectories(for: staged.keys, in: store)
        for path in staged.keys.sorted() where path != StoreLayout.stateFile {
            let absolute = store.layout.absolute(path)
            if let content = staged[path]! {
                if !fs.fileExists(absolute) { changedFolders.insert(absolute.parentPath) }
                try fs.writeFile(absolute, content, sync: true)
            } else if fs.fileExists(absolute) {
                try fs.removeFile(absolute)
                changedFolders.insert(absolute.parentPath)
            }
        }
        if try writeState(staged, in: store, sync: true) { changedFolders.insert(store.layout.root) }
        for folder in changedFolders.sorted() where fs.isDirectory(folder) { try fs.syncDirectory(folder) }
    }

    /// `state.json` is written beside and renamed into place, as lock-free readers read it before
    /// they look for a journal (`consistentRead`). True when the commit stages it.
    private static func writeState(_ staged: [String: [UInt8]?], in store: Store, sync: Bool) throws(FileSystemError) -> Bool {
        guard case .some(let state?) = staged[StoreLayout.stateFile] else { return false }
        try AtomicFile.write(state, to: store.layout.absolute(StoreLayout.stateFile), in: store.fs, sync: sync)
        return true
    }

    /// Writes each file in place, with no temp file and no fsync: only for files a journal on
    /// disk holds until a later syncfs has returned. Above `bulkThreshold` files, on 8 or 16
    /// threads (`threads(removing:)`). `state.json` beside and renamed (`writeState`).
    static func writeInPlace(_ staged: [String: [UInt8]?], in store: Store) throws(FileSystemError) {
        let fs = store.fs
        _ = try createDirectories(for: staged.keys, in: store)
        let jobs = placed(staged.sorted { $0.key < $1.key }.filter { $0.key != StoreLayout.stateFile }, in: store.layout)
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
        _ = try writeState(staged, in: store, sync: false)
    }

    /// Creates the folders the files go into; returns the folders whose names that changed
    /// (a new folder's parent, and its parent's: a table's first item), for a small commit's fsyncs.
    private static func createDirectories(for paths: Dictionary<String, [UInt8]?>.Keys, in store: Store) throws(FileSystemError) -> Set<String> {
        let fs = store.fs
        var seen = Set<String>(), changed = Set<String>()
        // Keyed by the relative folder, and the one just seen skips the set: a commit's 4,000
        // files sit in two or three folders, and joining and hashing each whole path cost
        // ~3,700 instructions a file.
        var last: String?
        for path in paths {
            let relative = path.parentPath
            if relative == last || !seen.insert(relative).inserted { continue }
            last = relative
            let dir = store.layout.absolute(path).parentPath
            if !fs.isDirectory(dir) {
                try fs.createDirectory(dir)
                changed.formUnion([dir.parentPath, dir.parentPath.parentPath])
            }
        }
        return changed
    }

    /// A file to write in place: its folder's absolute path and its name in it.
    typealias PlacedFile = (folder: String, name: String, content: [UInt8]?)

    /// Sorted files (relative paths) as folder and name, each folder as `absolute(path).parentPath`.
    /// Sorted paths come in runs by folder, so a run's files share one folder string, joined to
    /// the root once rather than for each file.
    static func placed(_ files: [(key: String, value: [UInt8]?)], in layout: StoreLayout) -> [PlacedFile] {
        var placed: [PlacedFile] = []
        placed.reserveCapacity(files.count)
        var last: (relative: String, absolute: String)?
        for (path, content) in files {
            let relative = path.parentPath, name = path.lastPathComponent
            if relative == "." {
                // A file at the top: the root as the join spells it.
                placed.append((layout.absolute(path).parentPath, name, content))
                continue
            }
            if last?.relative != relative { last = (relative, layout.absolute(relative)) }
            placed.append((last!.absolute, name, content))
        }
        return placed
    }

    /// A hand's files (sorted by path) in runs by folder, so each thread opens each folder once
    /// and names its files in it (`FileSystem.writeFiles`) instead of walking every whole path.
    static func byFolder(_ jobs: [PlacedFile]) -> [(folder: String, files: [(name: String, content: [UInt8]?)])] {
        var runs: [(folder: String, files: [(name: String, content: [UInt8]?)])] = []
        for (folder, name, content) in jobs {
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
