import TodoBasics
import TodoModel

/// What `todo doctor` found: every problem (it does not stop at the first), notes that are not
/// problems, and counts. Problems and notes are in path order; the command line words them
/// (`DoctorFindingText`) and sorts the findings of one path by their words.
public struct DoctorReport: Sendable {
    /// A finding at a path (as shown: `.todo/...`).
    public struct Problem: Sendable, Equatable {
        public var path: String
        public var finding: DoctorFinding
    }

    public var problems: [Problem] = []
    /// Things worth knowing that break nothing (an editor's backup beside a record).
    public var notes: [Problem] = []
    public var items = 0
    public var operations = 0
    public var conflicts = 0
    public var receipts = 0
    public var tables = 0
    /// What the check held in memory at most (issue 21: bounded at any number of items), for
    /// the tests.
    public var figures = DoctorFigures()
}

/// The most records `Doctor` held at once: item files (a batch being checked), operations (an
/// item's), the queue's names (in its sorts), and ids while comparing the index of ids with the
/// folders.
public struct DoctorFigures: Sendable, Equatable {
    public var itemFiles = 0
    public var operations = 0
    /// Operation names held by the sorts of the queue (`DoctorQueue`), and the runs they spilled.
    public var queueNames = 0
    public var queueRuns = 0
    public var ids = 0
    /// Runs the sort of the folders' ids spilled to disk.
    public var idRuns = 0
    /// Operation names the check (and rebuild) of the index of pending operations held, and the
    /// runs its sorts spilled (`PendingIndexFigures`).
    public var pendingIndex = PendingIndexFigures()
}

/// `todo doctor`: checks every file of the store and every invariant of sync.md §2.2.2, the edits
/// made by hand that todo has not recorded (`HandEdit`), system properties, symbolic links and
/// the remote URL. It changes nothing but derived data: it rebuilds the index of pending
/// operations and the index of ids when they are stale or wrong (`PendingIndex`, `IDIndex`).
public struct Doctor {
    let store: Store
    /// Why the store could not be opened for writing (`Store.openForCheck`), so an unfinished
    /// commit, if any, is shown through its journal and reported with that reason.
    let notWritable: StoreError?
    /// What is wrong with a remote URL, or nil: the URL rules live with the transport, above the store.
    let remoteProblem: (String) -> String?
    var report = DoctorReport()
    var state: ReplicaState?
    var tables: [String] = []
    /// The queue, sorted by item on disk, and what its items' turns need (`DoctorQueue`).
    var queue: DoctorQueue

    public static func check(_ store: Store, notWritable: StoreError? = nil,
                             remoteProblem: @escaping (String) -> String? = { _ in nil }) -> DoctorReport {
        var doctor = Doctor(store: store, notWritable: notWritable, remoteProblem: remoteProblem, queue: DoctorQueue(store))
        doctor.checkTop()
        doctor.checkTables()
        // The names of the operations first, so that the walk of the item files leaves the items
        // with operations to their turn in the queue, which reads each with its operations.
        doctor.checkOperationNames()
        doctor.checkConflicts()
        for table in doctor.tables { doctor.checkItems(table) }
        doctor.checkQueue()
        doctor.checkPendingIndex()
        doctor.checkIDIndex()
        doctor.checkReceipts()
        doctor.report.problems.sort { $0.path < $1.path }
        doctor.report.notes.sort { $0.path < $1.path }
        return doctor.report
    }

    mutating func problem(_ path: String, _ finding: DoctorFinding) {
        report.problems.append(.init(path: store.displayPath(path), finding: finding))
    }

    mutating func note(_ path: String, _ finding: DoctorFinding) {
        report.notes.append(.init(path: store.displayPath(path), finding: finding))
    }

    /// Runs a read, turning its failure into a problem of `path`.
    mutating func attempt<T>(_ path: String, _ body: () throws(StoreError) -> T?) -> T? {
        do { return try body() } catch {
            problem(path, DoctorFinding(error))
            return nil
        }
    }

    /// The names in a folder that hold records: hidden and editor leftovers are noted (todo
    /// ignores them), todo's own temp files and symbolic links are problems.
    mutating func entries(_ dir: String) -> [String] {
        var names: [String] = []
        forEachBatch(dir, size: .max) { _, batch in names += batch }
        return names.sorted()
    }

    /// As `entries`, a batch of at most `size` names at a time as the folder is read (in the
    /// folder's order): an items folder of a million names is never held.
    mutating func forEachBatch(_ dir: String, size: Int, _ body: (inout Doctor, [String]) -> Void) {
        var batch: [String] = []
        let fs = store.fs, layout = store.layout
        // A folder that cannot be read is reported by the reads of its records, as before.
        _ = try? fs.scanDirectory(layout.absolute(dir)) { name in
            let path = dir.isEmpty ? name : dir + "/" + name
            if fs.isSymbolicLink(layout.absolute(path)) {
                problem(path, .symbolicLink)
            } else if StoreLayout.isTemporary(name) {
                problem(path, .leftoverTemporaryFile)
            } else if dir.isEmpty && name == SecretFile.gitignore {
                // todo's own, keeps secrets out of git
            } else if StoreLayout.isLeftover(name) {
                note(path, .notARecord)
            } else {
                batch.append(name)
                if batch.count >= size {
                    body(&self, batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            return true
        }
        if !batch.isEmpty { body(&self, batch) }
    }

    mutating func checkTop() {
        let store = self.store
        if let (path, finding) = Self.checkFormatFile(store) { problem(path, finding) }
        state = attempt(StoreLayout.stateFile) { () throws(StoreError) in try store.state() }
        if let config = attempt(StoreLayout.configFile, { () throws(StoreError) in try store.config() }),
           let remote = config.remote, let why = remoteProblem(remote) {
            problem(StoreLayout.configFile, .remoteUnusable(remote: remote, reason: why))
        }
        for secret in SecretFile.all {
            if let stored = attempt(secret.name, { () throws(StoreError) in try secret.read(store) }), stored.isOpenToOthers {
                note(secret.name, .secretReadableByOthers(what: secret.what, mode: stored.mode, file: store.layout.absolute(secret.name)))
            }
        }
        _ = attempt(StoreLayout.undoFile) { () throws(StoreError) in try store.undoLog() }
        _ = attempt(StoreLayout.serverTablesFile) { () throws(StoreError) in try store.serverTables() }
        let known: Set<String> = [StoreLayout.formatFile, StoreLayout.configFile, StoreLayout.stateFile, StoreLayout.lockFile,
                                  SecretFile.appKey.name, SecretFile.authToken.name, StoreLayout.undoFile, StoreLayout.serverTablesFile,
                                  StoreLayout.tablesDirectory, StoreLayout.operationsDirectory,
                                  StoreLayout.conflictsDirectory, StoreLayout.receiptsDirectory, StoreLayout.cacheDirectory]
        for name in entries("") where !known.contains(name) {
            if name == ItemRemoval.folder { checkRemoval(); continue }
            problem(name, name == StoreLayout.journalFile ? .unfinishedCommit(notWritable: notWritable) : .unexpectedFile)
        }
    }

    mutating func checkTables() {
        let store = self.store
        tables = entries(StoreLayout.tablesDirectory)
        report.tables = tables.count
        for table in tables {
            for name in entries(store.layout.tableDirectory(table)) where name != "table.json" && name != "items" && name != "numbers" {
                problem(store.layout.tableDirectory(table) + "/" + name, .unexpectedFile)
            }
            let configPath = store.layout.tableConfig(table)
            if let config = attempt(configPath, { () throws(StoreError) in try store.tableConfig(table) }) {
                if config.name != table { problem(configPath, .tableNameMismatch(name: config.name, folder: table)) }
            } else if !store.fs.fileExists(store.layout.absolute(configPath)) {
                problem(configPath, .missing)
            }
            checkNumbers(table)
        }
    }
}
