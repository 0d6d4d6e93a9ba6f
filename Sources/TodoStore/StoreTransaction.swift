import TodoBasics
import TodoModel

/// All the changes of one command, staged and then committed at a single point.
///
/// Commit protocol (one commit point: the rename of the journal):
/// 1. The staged files, with the bumped generation in `state.json`, go into `journal.json`
///    (temp, fsync, rename, fsync of `.todo/`). From here the command has happened.
/// 2. Each target is written in place (or removed), `state.json` renamed into place, and made
///    durable (`Recovery.apply`: fsyncs of the files and of the folders whose names changed, or
///    one syncfs for a large commit): the journal holds their bytes until then, so no file needs
///    a temp file of its own.
/// 3. The journal is removed. Its removal is made durable by the next commit's fsync of `.todo/`;
///    if power fails first, recovery replays the same whole files again, which is harmless.
/// A kill at any instant leaves either the old state (no journal) or a journal that the next
/// writer (`Recovery`) applies.
public struct StoreTransaction {
    public internal(set) var state: ReplicaState
    /// Relative path -> new content (nil removes the file). Later stages replace earlier ones.
    private(set) var staged: [String: JSONValue?] = [:]
    /// Staged files already encoded (`encodeStaged`); a later stage of the same path drops its bytes.
    private var encodedFiles: [String: [UInt8]?] = [:]
    /// Staged files a commit series may keep in its journal only (`putInFlightMarker`).
    private(set) var shortLived: Set<String> = []
    /// False for a commit that only removes item files of a purge or table rm (`ItemRemoval`):
    /// it never gives a table its first numbers, which would number every item still to go.
    var numbersTables = true
    let layout: StoreLayout

    init(state: ReplicaState, layout: StoreLayout) {
        self.state = state
        self.layout = layout
    }

    public var isEmpty: Bool { staged.isEmpty }

    /// Room for `count` staged files (`Store.transaction(following:)`).
    fileprivate mutating func reserve(_ count: Int) { staged.reserveCapacity(count) }

    public mutating func put(_ relative: String, _ value: JSONValue) {
        staged[relative] = .some(value)
        forgetEncoding(relative)
    }

    /// Stages a derived file already encoded (the index's buckets and pages, `PendingNames`),
    /// which no stage after it reads back as a value: `staged` holds a placeholder for it.
    mutating func putEncoded(_ relative: String, _ bytes: [UInt8]) {
        staged[relative] = .some(.null)
        encodedFiles[relative] = .some(bytes)
        if !shortLived.isEmpty { shortLived.remove(relative) }
    }

    public mutating func remove(_ relative: String) {
        staged[relative] = .some(nil)
        forgetEncoding(relative)
    }

    /// A path staged anew: its earlier bytes and short life go. Each lookup hashes the whole
    /// path, and a push stages 6,000 paths a batch into a transaction that holds neither yet.
    private mutating func forgetEncoding(_ relative: String) {
        if !encodedFiles.isEmpty { encodedFiles[relative] = nil }
        if !shortLived.isEmpty { shortLived.remove(relative) }
    }

    /// Encodes what is staged so far, so that the commit need not: the push does this while the
    /// commit before is still running, which takes the encoding off the commits' critical path.
    public mutating func encodeStaged() {
        encodedFiles.reserveCapacity(staged.count)
        for (path, value) in staged where encodedFiles[path] == nil { encodedFiles[path] = .some(value?.canonicalBytes()) }
    }

    // MARK: Typed staging

    /// An item file carries `ms_written`, so that an edit made outside todo shows (`HandEdit`).
    public mutating func putItem(_ item: Item, table: String) {
        let path = layout.item(table, item.id)
        put(path, ItemFile(path: path, item: item).json)
    }
    public mutating func removeItem(table: String, id: String) { remove(layout.item(table, id)) }
    public mutating func putOperation(_ op: PendingOperation) { put(layout.operation(op), OperationFile(op).json) }
    public mutating func removeOperation(_ op: PendingOperation) { remove(layout.operation(op)) }
    /// Stages an op whose in-flight marker was just set (sync.md §4.3.1). Its answer replaces the
    /// file a commit or two later, so a `CommitSeries` keeps it in the journal only, and never
    /// writes the file in place (`CommitSeries`). A plain commit writes it like any other file.
    public mutating func putInFlightMarker(_ op: PendingOperation) {
        let path = layout.operation(op)
        put(path, OperationFile(op).json)
        shortLived.insert(path)
    }
    public mutating func putConflict(_ c: Conflict) { put(layout.conflict(c.table, c.id), ConflictFile(c).json) }
    public mutating func removeConflict(table: String, id: String) { remove(layout.conflict(table, id)) }
    public mutating func putTableConfig(_ t: TableConfig) { put(layout.tableConfig(t.name), TableConfigFile(t).json) }
    public mutating func putConfig(_ c: ReplicaConfig) { put(StoreLayout.configFile, ConfigFile(c).json) }
    public mutating func putUndoLog(_ log: UndoLog) { put(StoreLayout.undoFile, UndoFile(log).json) }
    public mutating func putServerTables(_ list: ServerTableList) { put(StoreLayout.serverTablesFile, ServerTablesFile(list).json) }

    /// Numbers the receipt from the never-reused counter and stages it.
    @discardableResult
    public mutating func addReceipt(_ receipt: Receipt) -> Receipt {
        var r = receipt
        r.number = state.nextReceipt
        state.nextReceipt += 1
        put(layout.receipt(r), ReceiptFile(r).json)
        return r
    }

    /// Takes `count` sequence numbers for new operations.
    public mutating func setNextSequence(_ next: Int) { state.nextSequence = next }

    /// Applies a planned local change: removals first, so an operation rewritten under the same
    /// name is kept.
    public mutating func apply(_ plan: ChangePlan, table: String, id: String) {
        for op in plan.removals { removeOperation(op) }
        for op in plan.writes { putOperation(op) }
        if let item = plan.item { putItem(item, table: table) } else { removeItem(table: table, id: id) }
        for receipt in plan.receipts { addReceipt(receipt) }
        state.nextSequence = max(state.nextSequence, plan.nextSequence)
    }

    /// Every staged file encoded once, and the journal that holds them all with the new generation.
    /// Each file's bytes go into the journal as they will be written (pretty JSON is valid inside
    /// compact JSON), so a big commit encodes each file once instead of twice. The order of the
    /// entries carries no meaning. For a `CommitSeries` the journal holds two more kinds of files,
    /// unless this commit stages the same path (their entries are reused as bytes):
    /// - `carried`: the files of the commit before, written but maybe not durable yet;
    /// - `held`: files committed earlier but never written in place. Given `held` (even empty),
    ///   this commit holds back its own short-lived files too (`EncodedCommit.held`).
    func encoded(carrying carried: EncodedCommit? = nil, held: [String: HeldFile]? = nil) -> EncodedCommit {
        var files: [String: [UInt8]?] = [:]
        files.reserveCapacity(staged.count)
        var entries: [UInt8] = []
        entries.reserveCapacity(staged.count * 256)
        var stateEntry: [UInt8] = []
        var newlyHeld: [String: HeldFile] = [:]
        if held != nil { newlyHeld.reserveCapacity(shortLived.count) }
        for (path, value) in staged {
            let bytes = encodedFiles[path] ?? value.map { $0.canonicalBytes() }
            if path == StoreLayout.stateFile {
                files[path] = .some(bytes)
                Self.appendEntry(path, bytes, to: &stateEntry)
            } else if held != nil, shortLived.contains(path) {
                var entry: [UInt8] = []
                Self.appendEntry(path, bytes, to: &entry)
                newlyHeld[path] = HeldFile(content: bytes, entry: entry)
            } else {
                files[path] = .some(bytes)
                if !entries.isEmpty { entries.append(UInt8(ascii: ",")) }
                Self.appendEntry(path, bytes, to: &entries)
            }
        }
        var journal = Array(#"{"format":1,"generation":"#.utf8) + Array(String(state.generation).utf8) + Array(#","writes":["#.utf8)
        journal.reserveCapacity(journal.count + stateEntry.count + entries.count + (carried?.entries.count ?? 0) + 8)
        var parts = [stateEntry, entries]
        if let carried, !carried.entries.isEmpty {
            if carried.files.keys.contains(where: { $0 != StoreLayout.stateFile && staged[$0] != nil }) {
                // Staged again here: only the carried files this commit leaves alone.
                var kept: [UInt8] = []
                for (path, bytes) in carried.files where path != StoreLayout.stateFile && staged[path] == nil {
                    if !kept.isEmpty { kept.append(UInt8(ascii: ",")) }
                    Self.appendEntry(path, bytes, to: &kept)
                }
                parts.append(kept)
            } else {
                parts.append(carried.entries)
            }
        }
        var stillHeld = newlyHeld
        for (path, file) in held ?? [:] where staged[path] == nil { stillHeld[path] = file }
        parts.append(contentsOf: stillHeld.values.map(\.entry))
        for part in parts where !part.isEmpty {
            if journal.last != UInt8(ascii: "[") { journal.append(UInt8(ascii: ",")) }
            journal.append(contentsOf: part)
        }
        journal.append(contentsOf: "]}\n".utf8)
        return EncodedCommit(files: files, entries: entries, journal: journal, held: stillHeld)
    }

    private static func appendEntry(_ path: String, _ bytes: [UInt8]?, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"content":"#.utf8)
        out.append(contentsOf: bytes ?? Array("null".utf8))
        out.append(contentsOf: #","path":"#.utf8)
        JSONText.appendString(path, to: &out)
        out.append(UInt8(ascii: "}"))
    }
}

/// A commit ready to write: each file's bytes (nil: remove it) and the journal's bytes.
struct EncodedCommit {
    /// The files to write in place now.
    let files: [String: [UInt8]?]
    /// The journal entries of `files` but `state.json`, which each commit writes anew: what a
    /// later journal carries while this commit is not durable yet.
    let entries: [UInt8]
    let journal: [UInt8]
    /// Files in the journal but not in `files`: held back, so every later journal must hold them
    /// until a commit stages them again (`CommitSeries`).
    var held: [String: HeldFile] = [:]
}

/// A committed file that is not written in place yet: its bytes (nil: remove it) and its entry
/// in the journal.
struct HeldFile {
    let content: [UInt8]?
    let entry: [UInt8]
}

extension Store {
    /// Starts a transaction on the current state. Requires the store to be open for writing.
    public func transaction() throws(StoreError) -> StoreTransaction {
        precondition(isWritable, "transactions need the store lock")
        return StoreTransaction(state: try state(), layout: layout)
    }

    /// The transaction that starts where `previous` leaves the store once it is committed, made
    /// without reading `state.json`: the push stages one batch's outcomes while the commit before
    /// them may still be rewriting that file. Only for a writer that commits `previous` next.
    public func transaction(following previous: StoreTransaction) -> StoreTransaction {
        precondition(isWritable, "transactions need the store lock")
        var state = previous.state
        if !previous.isEmpty { state.generation += 1 }
        var next = StoreTransaction(state: state, layout: layout)
        // The push's next batch stages about as many files: room for them, so the dictionary is
        // not rehashed as it grows (each rehash hashes every path again).
        next.reserve(previous.staged.count)
        return next
    }

    /// Commits all staged changes at one point (see `StoreTransaction`). An empty transaction
    /// writes nothing. The derived indexes change in the same commit when they were right before
    /// it (`PendingIndex`, `IDIndex`); otherwise the commit leaves them stale. New items get their
    /// numbers in it (`ItemNumbers`).
    ///
    /// A failure before the commit point throws and leaves no trace. A failure after it throws
    /// `.unfinished`: the change has happened (the journal holds it; readers show it; the next
    /// writer finishes it), and only the writing of its files is left to do.
    public func commit(_ transaction: StoreTransaction) throws(StoreError) {
        guard !transaction.isEmpty else { return }
        try commit(prepared: prepare(transaction))
    }

    func commit(prepared: PreparedCommit) throws(StoreError) {
        let encoded = Self.stamped(prepared.transaction).encoded()
        try writeJournal(encoded.journal, undoUnlessDurable: true)
        try Recovery.apply(encoded.files, in: self)
        afterCommit(prepared)
    }

    /// The transaction with what every commit carries besides the command's own files: the
    /// numbers of new items and the buckets of the indexes it keeps.
    func prepare(_ transaction: StoreTransaction) throws(StoreError) -> PreparedCommit {
        var tx = transaction
        let keepsPendingIndex = PendingIndex.stage(into: &tx, self)
        let changes = try ItemFileChanges.of(tx, self)
        let numbers = tx.numbersTables ? try ItemNumbers.stage(into: &tx, self, changes) : (given: [:], firstNumbered: [])
        let idTables = IDIndex.stage(into: &tx, self, changes, numbers: numbers)
        return PreparedCommit(transaction: tx, keepsPendingIndex: keepsPendingIndex, idIndexTables: idTables, numbers: numbers.given)
    }

    /// Once a prepared commit's files are written: the indexes it kept record the new stamps.
    func afterCommit(_ prepared: PreparedCommit) {
        if prepared.keepsPendingIndex { PendingIndex.restamp(self) }
        IDIndex.restamp(prepared.idIndexTables, self)
        if !prepared.numbers.isEmpty { givenNumbers = prepared.numbers }
    }

    /// The transaction with its new generation staged in `state.json`.
    static func stamped(_ transaction: StoreTransaction) -> StoreTransaction {
        var tx = transaction
        tx.state.generation += 1
        tx.put(StoreLayout.stateFile, StateFile(tx.state).json)
        return tx
    }

    /// Writes the journal atomically: the commit point is its rename, made durable by the fsync of
    /// `.todo/`. A failure before the rename leaves no journal (its torn temp file is removed when
    /// possible; recovery removes it otherwise).
    ///
    /// `undoUnlessDurable`: when the fsync fails, the journal is removed again, so the commit did
    /// not happen, rather than one a power cut might still take back. Only for a journal that
    /// replaced none that matters: a commit series' earlier journal carries files that may not be
    /// durable yet, so a series keeps its journal and stops instead.
    func writeJournal(_ bytes: [UInt8], undoUnlessDurable: Bool = false) throws(StoreError) {
        let path = layout.absolute(StoreLayout.journalFile)
        do {
            try AtomicFile.write(bytes, to: path, in: fs)
        } catch {
            try? fs.removeFile(AtomicFile.tempPath(for: path))
            throw .io(error)
        }
        do {
            try fs.syncDirectory(layout.root)
        } catch {
            guard undoUnlessDurable else { throw .io(error) }
            do { try fs.removeFile(path) } catch { throw .unfinished(error) }
            throw .io(error)
        }
    }
}

/// A transaction with the numbers and index buckets its commit carries (`Store.prepare`).
struct PreparedCommit {
    var transaction: StoreTransaction
    var keepsPendingIndex: Bool
    var idIndexTables: [String: IDIndex.Staged]
    var numbers: [String: [String: Int]]
}
