import TodoBasics
import TodoModel
import TodoStore

/// The queue as `todo status` shows it, counted as it is walked and never held (issue 21:
/// status held every operation, and every id of their tables for the short ids: 1,972 MB at a
/// million pending inserts). `--short`'s lines and `--json`'s elements go through a sort by
/// sequence on disk (`RunSorter`), printed from its merge once the rest of the report is known.
struct StatusQueue {
    var count = 0
    /// Operations whose item has an open conflict: a push skips them.
    var held = 0
    var byTable: [String: [PendingOperation.Kind: Int]] = [:]
    /// By sequence: each line of `--short` or element of `--json`'s `pending`, as printed.
    var lines: RunSorter?
    /// The most names and operations the walk held at once, and the runs its sorts spilled; the
    /// same for the entries of the stamp cache and the sort of the item files.
    var figures = (names: 0, operations: 0, runs: 0, stamps: 0, stampRuns: 0)

    mutating func tally(_ name: OperationFileName, held isHeld: Bool) {
        count += 1
        if isHeld { held += 1 }
        byTable[name.table, default: [:]][name.kind, default: 0] += 1
    }

    /// Each line (or element) in queue order, while `body` returns true.
    func forEachLine(_ body: ([UInt8]) -> Bool) throws(CLIError) {
        guard let lines else { return }
        do { try lines.sorted { body($0.payload) } } catch { throw .store(.io(error)) }
    }
}

/// Short ids as `ShortIDs` gives them, without holding the tables' ids: every id the tables know
/// and every id shown go through a sort by table and id (`RunSorter`). An id shown is cut one
/// character past the longest prefix it shares with another known id, at least
/// `ShortIDs.minimum`: the known ids just before and after it in the sort decide. Unlike
/// `ShortIDSort`'s rows, an id shown is not known for that (a hashed name's id is not an id).
final class StatusShortIDs {
    private let sorter: RunSorter

    init(budget: Int, folders: [String]) { sorter = RunSorter(budget: budget, folders: folders) }

    var peakRecords: Int { sorter.peakRecords }
    var runsWritten: Int { sorter.runsWritten }

    func addKnown(table: String, key: String) throws(FileSystemError) {
        try sorter.add(key: Self.sortKey(table, key), payload: [])
    }

    /// A row to give the short form of `key` (`ItemID.key`) of `table`.
    func addShown(table: String, key: String, row: [UInt8]) throws(FileSystemError) {
        try sorter.add(key: Self.sortKey(table, key), payload: [1] + row)
    }

    /// Every row with how many characters of its id to show, in id order, while `body` returns true.
    func merge(_ body: (_ row: [UInt8], _ shown: Int) -> Bool) throws(FileSystemError) {
        typealias ID = (table: [UInt8], key: [Unicode.Scalar])
        struct Group {
            var table: [UInt8]
            var key: [Unicode.Scalar]
            var known = false
            var rows: [[UInt8]] = []
            var previous: [Unicode.Scalar]?
        }
        var lastKnown: ID?
        // Groups with rows whose next known id is not met yet.
        var waiting: [Group] = []
        var group: Group?
        var going = true
        func emit(next: ID?) {
            for w in waiting where going {
                var shared = w.previous.map { Self.common($0, w.key) } ?? 0
                if let next, next.table == w.table { shared = max(shared, Self.common(w.key, next.key)) }
                let shown = min(w.key.count, max(ShortIDs.minimum, shared + 1))
                for row in w.rows where going { going = body(row, shown) }
            }
            waiting = []
        }
        func complete(_ done: Group) {
            var g = done
            if let lastKnown, lastKnown.table == g.table { g.previous = lastKnown.key }
            if g.known {
                emit(next: (g.table, g.key))
                lastKnown = (g.table, g.key)
            }
            if !g.rows.isEmpty { waiting.append(g) }
        }
        try sorter.sorted { record in
                let split = record.key.firstIndex(of: 0) ?? record.key.count
                let table = Array(record.key[..<split])
                let key = Array(String(decoding: record.key[min(split + 1, record.key.count)...], as: UTF8.self).unicodeScalars)
                if group == nil || group!.table != table || group!.key != key {
                    if let done = group { complete(done) }
                    group = Group(table: table, key: key)
                }
                if record.payload.isEmpty { group!.known = true } else { group!.rows.append(Array(record.payload.dropFirst())) }
                return going
        }
        if let done = group { complete(done) }
        emit(next: nil)
    }

    private static func sortKey(_ table: String, _ key: String) -> [UInt8] { Array(table.utf8) + [0] + Array(key.utf8) }

    private static func common(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        var n = 0
        while n < a.count && n < b.count && a[n] == b[n] { n += 1 }
        return n
    }
}

/// The short ids of the conflicts and hand edits `status` shows, by table and id key.
struct StatusShownIDs {
    var lengths: [String: [String: Int]] = [:]

    func of(_ id: String, table: String) -> String {
        let key = ItemID.key(id)
        return ShortIDSort.shortID(id, shown: lengths[table]?[key] ?? key.unicodeScalars.count)
    }
}

extension StatusReport {
    /// One walk of the queue (`Store.handEdits(table:)`, which reads each operation once, an item
    /// at a time): its counts, its lines by sequence for `--short` and `--json`, the hand edits,
    /// and the short ids of what the text forms show.
    static func walk(_ store: Store, table: String?, form: Form, conflicts: [Conflict], budget: Int,
                     folders: [String]) throws(CLIError) -> (StatusQueue, [HandEdit], StatusShownIDs) {
        let blocked = Set(conflicts.map { "\($0.table)/\(IDEncoding.fileName(for: $0.id))" })
        var queue = StatusQueue()
        let lines = form == .long ? nil : RunSorter(budget: budget, folders: folders)
        queue.lines = lines
        let ids = form == .json ? nil : StatusShortIDs(budget: budget, folders: folders)
        // Sequences of hashed names (`IDEncoding`): their known id is the one their file holds.
        var hashed = Set<Int>()
        var edits: [HandEdit] = []
        do throws(StoreError) {
            edits = try store.handEdits(table: table, eachName: { name throws(StoreError) in
                queue.tally(name, held: blocked.contains(name.table + "/" + name.encodedID))
                guard form == .short, let ids else { return }
                let decoded = IDEncoding.decode(name.encodedID)
                let isHeld: UInt8 = blocked.contains(name.table + "/" + name.encodedID) ? 1 : 0
                try io { () throws(FileSystemError) in
                    try ids.addShown(table: name.table, key: ItemID.key(decoded ?? name.encodedID), row: [0, isHeld] + Array(name.name.utf8))
                    if let decoded { try ids.addKnown(table: name.table, key: decoded) }
                }
                if decoded == nil { hashed.insert(name.sequence) }
            }, eachOperation: { op throws(StoreError) in
                if let lines, form == .json {
                    let held = blocked.contains(op.table + "/" + IDEncoding.fileName(for: op.id))
                    let element = json(op, held: held).canonicalBytes(nestedAt: 2)
                    try io { () throws(FileSystemError) in
                        try lines.add(key: RunSorter.numberKey(op.sequence) + Array(op.table.utf8) + [0] + Array(op.id.utf8), payload: element)
                    }
                } else if let ids, hashed.contains(op.sequence) {
                    try io { () throws(FileSystemError) in try ids.addKnown(table: op.table, key: ItemID.key(op.id)) }
                }
            })
        } catch { throw .store(error) }
        var shown = StatusShownIDs()
        if let ids {
            var tables = Set(conflicts.map(\.table)).union(edits.map(\.table))
            if form == .short { tables.formUnion(queue.byTable.keys) }
            if !tables.isEmpty {
                var failure: FileSystemError?
                do throws(StoreError) {
                    try knownBesidesQueue(store, tables: tables, queueToo: form == .long, into: ids)
                    for (t, id) in conflicts.map({ ($0.table, $0.id) }) + edits.map({ ($0.table, $0.id) }) {
                        try io { () throws(FileSystemError) in try ids.addShown(table: t, key: ItemID.key(id), row: [1] + Array(t.utf8) + [0] + Array(ItemID.key(id).utf8)) }
                    }
                    try io { () throws(FileSystemError) in
                        try ids.merge { row, length in
                            if row[0] == 1 {
                                let split = row.firstIndex(of: 0) ?? row.count
                                let table = String(decoding: row[1..<split], as: UTF8.self)
                                shown.lengths[table, default: [:]][String(decoding: row[min(split + 1, row.count)...], as: UTF8.self)] = length
                                return true
                            }
                            guard let lines, let name = OperationFileName(parsing: String(decoding: row.dropFirst(2), as: UTF8.self)) else { return true }
                            do throws(FileSystemError) { try lines.add(key: RunSorter.numberKey(name.sequence) + Array(name.name.utf8), payload: shortLine(name, held: row[1] == 1, shown: length)) } catch {
                                failure = error
                                return false
                            }
                            return true
                        }
                    }
                    if let failure { throw StoreError.io(failure) }
                } catch { throw .store(error) }
            }
            queue.figures.names += ids.peakRecords
            queue.figures.runs += ids.runsWritten
        }
        if let lines {
            queue.figures.names += lines.peakRecords
            queue.figures.runs += lines.runsWritten
        }
        return (queue, edits, shown)
    }

    /// The ids the tables know besides those of the queue's names the walk gave: item files and
    /// conflicts, and for the long form (which shows no operation) the queue's own, from a second
    /// walk of its names (a hashed name's from its file).
    private static func knownBesidesQueue(_ store: Store, tables: Set<String>, queueToo: Bool, into ids: StatusShortIDs) throws(StoreError) {
        if queueToo {
            try store.forEachOperationName { name throws(StoreError) in
                guard tables.contains(name.table) else { return }
                var key = IDEncoding.decode(name.encodedID)
                if key == nil, let op = try store.operation(name) { key = ItemID.key(op.id) }
                if let key { try io { () throws(FileSystemError) in try ids.addKnown(table: name.table, key: key) } }
            }
        }
        for t in tables.sorted() {
            try store.forEachItemOrConflictIDKey(table: t) { key throws(StoreError) in try io { () throws(FileSystemError) in try ids.addKnown(table: t, key: key) } }
        }
    }

    /// `--short`'s line of an operation: `I|U|D`, `!` when held, its table, short id and sequence.
    private static func shortLine(_ name: OperationFileName, held: Bool, shown: Int) -> [UInt8] {
        let letter = name.kind == .insert ? "I" : name.kind == .update ? "U" : "D"
        let id = IDEncoding.decode(name.encodedID) ?? name.encodedID
        return Array("\(letter)\(held ? "!" : " ") \(name.table)  \(ShortIDSort.shortID(id, shown: shown))  #\(name.sequence)".utf8)
    }

    private static func io(_ call: () throws(FileSystemError) -> Void) throws(StoreError) {
        do { try call() } catch { throw .io(error) }
    }
}
