import TodoBasics
import TodoModel

/// What `todo doctor` found: every problem (it does not stop at the first), notes that are not
/// problems, and counts.
public struct DoctorReport: Sendable {
    public struct Problem: Sendable, Equatable {
        public var path: String
        public var message: String
    }

    public var problems: [Problem] = []
    /// Things worth knowing that break nothing (an editor's backup beside a record).
    public var notes: [Problem] = []
    public var items = 0
    public var operations = 0
    public var conflicts = 0
    public var receipts = 0
    public var tables = 0
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
    var itemFiles: [String: ItemFile] = [:]
    var opsByKey: [String: [PendingOperation]] = [:]
    var conflictsByKey: [String: Conflict] = [:]

    public static func check(_ store: Store, notWritable: StoreError? = nil,
                             remoteProblem: @escaping (String) -> String? = { _ in nil }) -> DoctorReport {
        var doctor = Doctor(store: store, notWritable: notWritable, remoteProblem: remoteProblem)
        doctor.checkTop()
        doctor.checkTables()
        doctor.checkOperations()
        doctor.checkPendingIndex()
        doctor.checkIDIndex()
        doctor.checkConflicts()
        doctor.checkInvariants()
        doctor.checkReceipts()
        doctor.report.problems.sort { ($0.path, $0.message) < ($1.path, $1.message) }
        doctor.report.notes.sort { ($0.path, $0.message) < ($1.path, $1.message) }
        return doctor.report
    }

    mutating func problem(_ path: String, _ message: String) {
        report.problems.append(.init(path: store.displayPath(path), message: message))
    }

    /// Runs a read, turning its failure into a problem of `path`.
    mutating func attempt<T>(_ path: String, _ body: () throws(StoreError) -> T?) -> T? {
        do { return try body() } catch {
            if case .corrupt(_, let reason) = error { problem(path, reason) } else { problem(path, error.message) }
            return nil
        }
    }

    /// The names in a folder that hold records: hidden and editor leftovers are noted (todo
    /// ignores them), todo's own temp files and symbolic links are problems.
    mutating func entries(_ dir: String) -> [String] {
        var names: [String] = []
        for name in ((try? store.fs.listDirectory(store.layout.absolute(dir))) ?? nil)?.sorted() ?? [] {
            let path = dir.isEmpty ? name : dir + "/" + name
            if store.fs.isSymbolicLink(store.layout.absolute(path)) {
                problem(path, "a symbolic link: todo replaces a file when it writes it, so the link's target would silently stop "
                        + "being the store's; put the file itself here")
                continue
            }
            if StoreLayout.isTemporary(name) {
                problem(path, "leftover temporary file")
                continue
            }
            if dir.isEmpty && name == SecretFile.gitignore { continue }  // todo's own, keeps secrets out of git
            if StoreLayout.isLeftover(name) {
                report.notes.append(.init(path: store.displayPath(path), message: "not a record (an editor's leftover?): todo ignores it"))
                continue
            }
            names.append(name)
        }
        return names
    }

    mutating func checkTop() {
        let store = self.store
        var found: [(String, String)] = []
        Self.checkFormatFile(store) { found.append(($0, $1)) }
        for (path, message) in found { problem(path, message) }
        state = attempt(StoreLayout.stateFile) { () throws(StoreError) in try store.state() }
        if let config = attempt(StoreLayout.configFile, { () throws(StoreError) in try store.config() }),
           let remote = config.remote, let why = remoteProblem(remote) {
            problem(StoreLayout.configFile, "\"remote\" is \(JSONValue.string(remote).compactText): \(why); push and pull cannot use it "
                    + "(set another with 'todo remote set URL')")
        }
        for secret in SecretFile.all {
            if let stored = attempt(secret.name, { () throws(StoreError) in try secret.read(store) }), stored.isOpenToOthers {
                report.notes.append(.init(path: store.displayPath(secret.name),
                                          message: "other users can read the \(secret.what) (mode \(String(stored.mode, radix: 8))); "
                                              + "run: chmod 600 '\(store.layout.absolute(secret.name))'"))
            }
        }
        _ = attempt(StoreLayout.undoFile) { () throws(StoreError) in try store.undoLog() }
        _ = attempt(StoreLayout.serverTablesFile) { () throws(StoreError) in try store.serverTables() }
        let known: Set<String> = [StoreLayout.formatFile, StoreLayout.configFile, StoreLayout.stateFile, StoreLayout.lockFile,
                                  SecretFile.appKey.name, SecretFile.authToken.name, StoreLayout.undoFile, StoreLayout.serverTablesFile,
                                  StoreLayout.tablesDirectory, StoreLayout.operationsDirectory,
                                  StoreLayout.conflictsDirectory, StoreLayout.receiptsDirectory, StoreLayout.cacheDirectory]
        for name in entries("") where !known.contains(name) {
            problem(name, name == StoreLayout.journalFile ? Self.unfinishedCommit(notWritable) : "unexpected file")
        }
    }

    mutating func checkTables() {
        let store = self.store
        tables = entries(StoreLayout.tablesDirectory)
        report.tables = tables.count
        for table in tables {
            for name in entries(store.layout.tableDirectory(table)) where name != "table.json" && name != "items" && name != "numbers" {
                problem(store.layout.tableDirectory(table) + "/" + name, "unexpected file")
            }
            let configPath = store.layout.tableConfig(table)
            if let config = attempt(configPath, { () throws(StoreError) in try store.tableConfig(table) }) {
                if config.name != table { problem(configPath, "\"name\" is \"\(config.name)\" but the folder is '\(table)'") }
            } else if !store.fs.fileExists(store.layout.absolute(configPath)) {
                problem(configPath, "missing")
            }
            checkNumbers(table)
            let dir = store.layout.itemsDirectory(table)
            for name in entries(dir) {
                let path = dir + "/" + name
                guard let file = attempt(path, { () throws(StoreError) in try store.decodeItemFile(path) }) else { continue }
                report.items += 1
                let item = file.item
                if IDEncoding.fileName(for: item.id) + ".json" != name {
                    problem(path, "the file name does not match the id \"\(item.id)\"")
                }
                if item.system.deleted != nil { problem(path, "an item file never holds ms_deleted") }
                if let p = ItemID.problem(item.id) { problem(path, "invalid id: \(p)") }
                itemFiles["\(table)/\(ItemID.key(item.id))"] = file
            }
        }
    }
}
