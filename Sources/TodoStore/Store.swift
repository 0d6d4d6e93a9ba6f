import TodoBasics
import TodoModel

/// An opened `.todo` directory.
///
/// Opened for writing, it holds the store lock and has completed any interrupted commit
/// (`Recovery`). Opened for reading, it takes no lock; `StoreReader` gives consistent views.
/// Reading one item or one id's operations never lists the items folder, nor (through the index
/// of pending operations, `PendingIndex`) the operations folder, so local commands cost the same
/// at any store size and queue length.
public final class Store {
    public let layout: StoreLayout
    public let fs: any FileSystem
    let lock: StoreLock?
    /// Set by a read that found a committed change it could not finish (the folder is read-only,
    /// a file immutable, the disk full), and so read through its journal: why it is unfinished.
    /// Readers show the change all the same; the CLI says it is not written yet.
    public internal(set) var unfinishedCommit: StoreError?
    /// Set by a command that shows hand-edited files as they are and reports them (a reader);
    /// without it, reading one throws `.editedByHand` (`HandEdit`).
    public var handEditLog: HandEditLog?
    /// The operations folder's stamp for which this command found the index of pending operations
    /// right (`PendingIndex`): set by a lookup or a rebuild, kept by this command's commits.
    var pendingIndexStamp: FileStamp?
    /// Set by the local changes (add, edit, rm, done): they rebuild a stale index of pending
    /// operations from a walk of the folder, and keep it in their commit. Push and pull keep it
    /// (`stagesPendingIndex`); other writers (resolve, purge) leave it stale. Local changes also
    /// rebuild a stale index of ids (`IDIndex`) when they need a short id.
    public var keepsPendingIndex = false
    /// Set by push and pull (`keepPendingIndexInCommits`): their commits keep the index of
    /// pending operations when it vouched for the folder as they started, but never rebuild it.
    var stagesPendingIndex = false
    /// The index of ids as this command has read it (`IDIndex.Memo`), by table.
    var idIndexMemo: [String: IDIndex.Memo] = [:]
    /// Keys per bucket of the index of ids before a split (`IDIndex.bucketLimit`; small in tests,
    /// `TODO_TEST_ID_BUCKET_LIMIT` for the CLI's).
    public var idIndexBucketLimit = IDIndex.bucketLimit
    /// Bytes of keys a rebuild or check of the index of ids sorts in memory before it spills to
    /// runs (small in tests: `TODO_TEST_SORT_BUDGET` for `doctor`).
    public var idIndexSortBudget = 8 << 20
    /// The same for the index of pending operations (`PendingIndexWalk`): its rebuild and check.
    public var pendingIndexSortBudget = 8 << 20
    /// What this command's last walk of the operations folder for the index of pending
    /// operations held at most (`PendingIndexFigures`; doctor reports it, tests read it).
    public internal(set) var pendingIndexFigures = PendingIndexFigures()
    /// Item files `doctor`, `purge` and `list` read at a time (small in tests: `TODO_TEST_ITEM_BATCH`).
    public var itemBatchSize = 2048
    /// Entries of a page of the stamp cache (`ItemStampCache`): 1 MB (small in tests:
    /// `TODO_TEST_ITEM_BATCH` for `status`).
    public var stampPageEntries = 1 << 16
    /// The most item files a batched walk (`forEachItemFile`) held at once (tests read it).
    public internal(set) var peakItemFilesHeld = 0
    /// The most operations a walk of the queue by item (`handEdits(table:)`) held at once.
    public internal(set) var peakOperationsHeld = 0
    /// The most entries of the stamp cache a scan for hand edits (`handEdits(table:)`) held at
    /// once, and the runs its sort of the items folders spilled (tests read them).
    public internal(set) var peakStampsHeld = 0
    public internal(set) var stampRunsWritten = 0
    /// Tables whose index of ids this command's commits could not keep (a pull page of new items,
    /// a first numbering): `rebuildIDIndexesLeftStale` rebuilds them once at the end.
    var idIndexesLeftStale: Set<String> = []
    /// What this command's last rebuild of an index of ids held in memory (tests read it).
    var lastIDIndexRebuild: IDIndex.RebuildFigures?
    /// The numbers the last commit that numbered new items gave them, by table and key
    /// (`ItemNumbers`): what `add` prints. Only that commit's: a clone that kept every page's
    /// would hold a million keys (about 130 MB) by its end (issue 21).
    public internal(set) var givenNumbers: [String: [String: Int]] = [:]

    init(layout: StoreLayout, fs: any FileSystem, lock: StoreLock?) {
        self.layout = layout
        self.fs = fs
        self.lock = lock
    }

    public var isWritable: Bool { lock != nil }

    /// Finds the `.todo` directory: `override` (TODO_DIR) when given, else walking up from `start`
    /// as git does.
    public static func discover(from start: String, override: String?, fs: any FileSystem) throws(StoreError) -> String {
        if let dir = override, !dir.isEmpty {
            let absolute = dir.hasPrefix("/") ? dir : start.appendingPath(dir)
            guard fs.isDirectory(absolute) else { throw .notAReplica(start: absolute) }
            return absolute
        }
        var dir = start
        while true {
            let candidate = dir.appendingPath(StoreLayout.directoryName)
            if fs.isDirectory(candidate) { return candidate }
            if dir == "/" || dir.isEmpty { throw .notAReplica(start: start) }
            dir = dir.parentPath
        }
    }

    /// Opens a store. Writers take the lock (failing at once when it is held) and recover.
    /// Writers wait up to `waitMilliseconds` for the lock.
    public static func open(at root: String, fs: any FileSystem, writable: Bool, command: String,
                            waitMilliseconds: Int = 1000) throws(StoreError) -> Store {
        let layout = StoreLayout(root: root)
        try checkFormat(layout, fs)
        guard writable else { return Store(layout: layout, fs: fs, lock: nil) }
        let lock: StoreLock
        do {
            lock = try StoreLock.acquire(at: layout.absolute(StoreLayout.lockFile), command: command, waitMilliseconds: waitMilliseconds)
        } catch let held as StoreLock.Held {
            throw .locked(path: held.path, pid: held.pid, command: held.command)
        } catch let e as FileSystemError {
            throw .io(e)
        } catch {
            throw .corrupt(path: root, reason: "\(error)")
        }
        let store = Store(layout: layout, fs: fs, lock: lock)
        try Recovery.run(store)
        return store
    }

    /// Opens a store for `todo doctor`, which must check any store it can read. Returns a writer
    /// (which has finished an interrupted commit) when it can be one; else a reader that sees an
    /// unfinished commit through its journal, with the reason it could not write. A store whose
    /// `format.json` is missing or unknown is only ever read: nothing may be written to it.
    public static func openForCheck(at root: String, fs: any FileSystem) throws(StoreError) -> (store: Store, notWritable: StoreError?) {
        let layout = StoreLayout(root: root)
        let reader = Store(layout: layout, fs: fs, lock: nil)
        do {
            try checkFormat(layout, fs)
        } catch {
            return (reader, error)
        }
        do {
            return (try open(at: root, fs: fs, writable: true, command: "todo doctor"), nil)
        } catch .locked(let path, let pid, let command) {
            throw .locked(path: path, pid: pid, command: command)
        } catch {
            // A damaged journal is one of the problems doctor reports; the rest is checked as is.
            return ((try? reader.throughJournal()) ?? reader, error)
        }
    }

    /// Releases the lock now rather than at deinit (e.g. before running an editor).
    public func close() { lock?.release() }

    static func checkFormat(_ layout: StoreLayout, _ fs: any FileSystem) throws(StoreError) {
        let path = StoreLayout.formatFile
        let bytes: [UInt8]?
        do { bytes = try fs.readFile(layout.absolute(path)) } catch { throw .io(error) }
        guard let bytes else { throw .incomplete(path: layout.root, holds: nil) }
        do {
            _ = try FormatVersion.read(RecordReader(try JSONValue.parse(bytes)), current: 1)  // the store's format: this build knows 1
        } catch let e as JSONParseError {
            throw .corrupt(path: layout.absolute(path), reason: "invalid JSON: \(e)")
        } catch let e as RecordError {
            throw .corrupt(path: layout.absolute(path), reason: e.message)
        } catch {
            throw .corrupt(path: layout.absolute(path), reason: "\(error)")
        }
    }

    // MARK: Raw records

    /// Reads and parses one record, or nil when the file does not exist.
    public func record(_ relative: String) throws(StoreError) -> JSONValue? {
        let bytes: [UInt8]?
        do { bytes = try fs.readFile(layout.absolute(relative)) } catch { throw .io(error) }
        guard let bytes else { return nil }
        return try record(relative, bytes)
    }

    /// A record's bytes parsed, naming the file in any error.
    func record(_ relative: String, _ bytes: [UInt8]) throws(StoreError) -> JSONValue {
        do {
            return try JSONValue.parse(bytes)
        } catch {
            throw .corrupt(path: displayPath(relative), reason: "invalid JSON: \(error)")
        }
    }

    /// The bytes of these names in one folder of the store (nil: missing), the folder opened
    /// once (`FileSystem.readFiles`): a push reads thousands of files in two folders.
    func bytes(in folder: String, names: [String]) throws(StoreError) -> [[UInt8]?] {
        do { return try fs.readFiles(in: layout.absolute(folder), names: names) } catch { throw .io(error) }
    }

    /// Reads a record and decodes it, naming the file in any error.
    public func decode<T>(_ relative: String, _ decode: (JSONValue) throws(RecordError) -> T) throws(StoreError) -> T? {
        guard let value = try record(relative) else { return nil }
        do { return try decode(value) } catch { throw .corrupt(path: displayPath(relative), reason: error.message) }
    }

    /// Reads a file of one kind (`DiskRecord`, migrating an older format) and gives its value.
    public func read<File: DiskRecord>(_ relative: String, as kind: File.Type) throws(StoreError) -> File.Value? {
        try decode(relative) { json throws(RecordError) in try File(json: json).value }
    }

    /// The names in a folder of the store, without hidden files and editor leftovers
    /// (`StoreLayout.isLeftover`): people edit these files, and a backup beside one never breaks
    /// a command.
    public func list(_ relative: String) throws(StoreError) -> [String] {
        do {
            return (try fs.listDirectory(layout.absolute(relative)) ?? []).filter { !StoreLayout.isLeftover($0) }
        } catch { throw .io(error) }
    }

    /// Whether a folder of the store holds a name `list` would give, read only up to the first.
    public func holdsEntries(_ relative: String) throws(StoreError) -> Bool {
        do { return try fs.containsEntry(layout.absolute(relative)) { !StoreLayout.isLeftover($0) } } catch { throw .io(error) }
    }

    /// How paths appear in messages: `.todo/operations/…` relative to the replica's folder.
    public func displayPath(_ relative: String) -> String {
        StoreLayout.directoryName + "/" + relative
    }
}
