import TodoBasics
import TodoModel

/// `todo init` (and `clone`): creates a replica. `format.json` is written last, so a replica whose
/// creation was interrupted is recognisably incomplete.
///
/// A `.todo` folder that is already there is never reset: its counters keep operation and receipt
/// numbers from being reused, and its config holds the installation id the server knows. Init
/// goes ahead only in an empty folder or over its own interrupted run (`StoreSurvey`), which
/// nothing has committed to yet; anything else is refused, naming what the folder holds.
extension Store {
    /// `appKey` goes to `.todo/app-key` and `authToken` to `.todo/auth-token` (mode 0600,
    /// `SecretFile`), never to `config.json`.
    public static func create(at root: String, config: ReplicaConfig, appKey: String? = nil, authToken: String? = nil,
                              fs: any FileSystem) throws(StoreError) {
        let layout = StoreLayout(root: root)
        if fs.fileExists(layout.absolute(StoreLayout.formatFile)) { throw .alreadyInitialized(path: root) }
        if fs.fileExists(root) {
            guard fs.isDirectory(root) else { throw .corrupt(path: root, reason: "a file is in the way: a replica is a folder") }
            let survey = StoreSurvey(root: root, fs: fs)
            guard survey.isUnused else { throw .incomplete(path: root, holds: survey.summary) }
        }
        do {
            try fs.createDirectory(root)
            for dir in [StoreLayout.operationsDirectory, StoreLayout.conflictsDirectory, StoreLayout.receiptsDirectory,
                        layout.itemsDirectory(config.defaultTable)] {
                try fs.createDirectory(layout.absolute(dir))
            }
            let files: [(String, JSONValue)] = [
                (StoreLayout.configFile, ConfigFile(config).json),
                (StoreLayout.stateFile, StateFile(ReplicaState()).json),
                (layout.tableConfig(config.defaultTable), TableConfigFile(TableConfig(name: config.defaultTable)).json),
            ]
            for (path, value) in files {
                try AtomicFile.write(value.canonicalBytes(), to: layout.absolute(path), in: fs)
            }
            for dir in [layout.tableDirectory(config.defaultTable), StoreLayout.tablesDirectory, ""] {
                try fs.syncDirectory(dir.isEmpty ? root : layout.absolute(dir))
            }
        } catch {
            throw .io(error)
        }
        if let appKey { try SecretFile.appKey.write(appKey, in: Store(layout: layout, fs: fs, lock: nil)) }
        if let authToken { try SecretFile.authToken.write(authToken, in: Store(layout: layout, fs: fs, lock: nil)) }
        do {
            try AtomicFile.write((["format": 1] as JSONValue).canonicalBytes(), to: layout.absolute(StoreLayout.formatFile), in: fs)
        } catch {
            throw .io(error)
        }
        // format.json's rename made the replica; it counts once it is durable. If it may not be,
        // it is taken back (the next init finishes the job), so a failure means no replica.
        do {
            try fs.syncDirectory(root)
            try fs.syncDirectory(root.parentPath)
        } catch {
            do { try fs.removeFile(layout.absolute(StoreLayout.formatFile)) } catch { throw .unfinished(error) }
            throw .io(error)
        }
    }
}

/// What a `.todo` folder without `format.json` holds: enough to tell an interrupted `todo init`
/// (nothing committed: no journal, counters at their start, no records) from a damaged replica,
/// and to say what the latter would lose.
struct StoreSurvey {
    var items = 0
    var operations = 0
    var conflicts = 0
    var receipts = 0
    /// `state.json` as found: nil when missing, `.failure` when unreadable.
    var state: Result<ReplicaState, StoreError>?
    var hasJournal = false
    /// Names at the top that `todo init` never writes.
    var unknown: [String] = []

    init(root: String, fs: any FileSystem) {
        let store = Store(layout: StoreLayout(root: root), fs: fs, lock: nil)
        let records = { (dir: String) -> Int in
            ((try? fs.listDirectory(store.layout.absolute(dir))) ?? nil)?.filter { !$0.hasPrefix(".") }.count ?? 0
        }
        operations = records(StoreLayout.operationsDirectory)
        conflicts = records(StoreLayout.conflictsDirectory)
        receipts = records(StoreLayout.receiptsDirectory)
        for table in (try? store.tables()) ?? [] { items += records(store.layout.itemsDirectory(table)) }
        hasJournal = fs.fileExists(store.layout.absolute(StoreLayout.journalFile))
        if fs.fileExists(store.layout.absolute(StoreLayout.stateFile)) {
            do throws(StoreError) { state = .success(try store.state()) } catch { state = .failure(error) }
        }
        let initFiles: Set<String> = [StoreLayout.configFile, StoreLayout.stateFile, StoreLayout.lockFile, StoreLayout.journalFile, StoreLayout.undoFile, StoreLayout.serverTablesFile,
                                      SecretFile.appKey.name, SecretFile.authToken.name, SecretFile.gitignore,
                                      StoreLayout.tablesDirectory, StoreLayout.operationsDirectory,
                                      StoreLayout.conflictsDirectory, StoreLayout.receiptsDirectory, StoreLayout.cacheDirectory]
        unknown = (((try? fs.listDirectory(root)) ?? nil) ?? []).filter { !initFiles.contains($0) && !StoreLayout.isTemporary($0) }.sorted()
    }

    /// Nothing was ever committed here: an empty folder, or an interrupted `todo init`.
    var isUnused: Bool {
        guard items == 0, operations == 0, conflicts == 0, receipts == 0, !hasJournal, unknown.isEmpty else { return false }
        switch state {
        case nil: return true
        case .success(let s)?: return s == ReplicaState()
        case .failure?: return false
        }
    }

    /// "3 items, 1 pending operation and counters at operation 5, receipt 2", for messages.
    var summary: String {
        var parts: [String] = []
        if items > 0 { parts.append(Plural.count(items, "item")) }
        if operations > 0 { parts.append(Plural.count(operations, "pending operation")) }
        if conflicts > 0 { parts.append(Plural.count(conflicts, "conflict")) }
        if receipts > 0 { parts.append(Plural.count(receipts, "receipt")) }
        if hasJournal { parts.append("an unfinished commit (journal.json)") }
        switch state {
        case .success(let s)? where s != ReplicaState():
            parts.append("counters at operation \(s.nextSequence) and receipt \(s.nextReceipt)")
        case .failure(let e)?:
            parts.append("a state.json that cannot be read (\(e.message))")
        default:
            break
        }
        if !unknown.isEmpty { parts.append("other files: " + unknown.joined(separator: ", ")) }
        guard let last = parts.popLast() else { return "nothing todo can read" }
        return parts.isEmpty ? last : parts.joined(separator: ", ") + " and " + last
    }
}
