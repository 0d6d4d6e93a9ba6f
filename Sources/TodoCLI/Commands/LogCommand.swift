import TodoBasics
import TodoModel
import TodoStore

struct LogCommand: Command {
    static let name = "log"
    static let summary = "list pending operations, then receipts (newest first)"
    static let usage = "log [--table NAME] [--json]"
    static let discussion = """
        Lists the pending operations in queue order (what 'todo push' will send), then the receipts:
        every automatic decision (collapse, merge, ...) and resolution, newest first, with the values
        it replaced. A lost value can be put back with 'todo edit ID --set FIELD=JSON'.
        """
    static let options: [OptionSpec] = [OptionSpec("--table", .value("NAME"), "only this table"), .json]

    typealias Options = TableJSONOptions

    /// Streams in flat memory at any queue length. While the index of pending operations vouches
    /// for the queue, its pages give the queue order and the first line comes at once
    /// (`LogPages`); otherwise the queue's file names go through a sort by sequence on disk
    /// (`RunSorter`). Each operation is read, printed and dropped in turn; short ids come from the
    /// index of ids, or from a sort by id with every id of the tables shown (`ShortIDSort`).
    /// `--json` is written one element at a time, in the bytes one `canonicalBytes` gave.
    static func run(_ options: Options, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let store = try StoreAccess.open(ctx, writable: false, command: name)
        try StoreAccess.read(store, ctx) { s throws(CLIError) in
            try StoreAccess.startStreaming(ctx)
            s.sweepDeadSorts()
            let table = try options.table.map { t throws(CLIError) in try StoreAccess.table(t, s, create: false) }
            let json = options.json
            var receiptShown: [Int: Int] = [:]
            let receipts: [Receipt]
            do throws(StoreError) { receipts = try s.receipts().filter { table == nil || $0.table == table } } catch { throw .store(error) }
            if json { ctx.console.outRaw(Array("{\n  \"pending\": ".utf8)) }
            var shown = 0
            func emit(_ op: PendingOperation, _ length: Int) {
                if json {
                    ctx.console.outRaw(Array((shown == 0 ? "[\n    " : ",\n    ").utf8) + JSONOutput.operation(op).canonicalBytes(nestedAt: 2))
                } else {
                    if shown == 0 { ctx.console.out("Pending operations (queue order):") }
                    var line = "  #\(op.sequence)  \(op.kind.rawValue)  \(op.table)  \(ShortIDSort.shortID(op.id, shown: length))  \(summary(op))"
                    if op.isSealed { line += "  (sent, awaiting confirmation)" }
                    ctx.console.out(line)
                }
                shown += 1
            }
            let paged: Bool
            do throws(StoreError) {
                paged = try LogPages.walk(s, table: table, json: json, receipts: receipts, receiptShown: &receiptShown, emit)
                if !paged { try sorted(s, table: table, json: json, receipts: receipts, receiptShown: &receiptShown, ctx, emit) }
            } catch { throw .store(error) }
            let newestFirst = Array(receipts.enumerated().reversed())
            if json {
                ctx.console.outRaw(Array((shown == 0 ? "[]" : "\n  ]").utf8))
                let rest = JSONValue.array(newestFirst.map { JSONOutput.receipt($0.element) }).canonicalBytes(nestedAt: 1)
                ctx.console.outRaw(Array(",\n  \"receipts\": ".utf8) + rest + Array("\n}\n".utf8))
                return
            }
            if shown == 0 { ctx.console.out("No pending operations.") }
            ctx.console.out("")
            ctx.console.out(receipts.isEmpty ? "No receipts." : "Receipts (newest first):")
            for (i, r) in newestFirst {
                let id = ShortIDSort.shortID(r.id, shown: receiptShown[i] ?? r.id.unicodeScalars.count)
                ctx.console.out("  \(r.number)  \(r.at)  \(r.decision.rawValue) \(r.rule)  \(r.table)  \(id)  \(lost(r))")
            }
        }
        return ExitCode.ok
    }

    /// The queue through a sort by sequence on disk: when the index of pending operations does not
    /// vouch for the folder (a store just pulled or cloned, or changed by hand).
    private static func sorted(_ s: Store, table: String?, json: Bool, receipts: [Receipt], receiptShown: inout [Int: Int],
                               _ ctx: CommandContext, _ emit: (PendingOperation, Int) -> Void) throws(StoreError) {
        let budget = ctx.environment["TODO_TEST_SORT_BUDGET"].flatMap { Int($0) } ?? 8 << 20
        let folders = s.scratchFolders(environment: ctx.environment)
        let queue = RunSorter(budget: budget, folders: folders)
        if json {
            try s.forEachOperationName { name throws(StoreError) in
                guard table == nil || name.table == table else { return }
                try io { () throws(FileSystemError) in try queue.add(key: RunSorter.numberKey(name.sequence), payload: Array(name.name.utf8)) }
            }
        } else if try !shortIDsFromIndex(s, table: table, receipts: receipts, queue: queue, receiptShown: &receiptShown) {
            try shortIDs(s, table: table, receipts: receipts, budget: budget, folders: folders, queue: queue, receiptShown: &receiptShown)
        }
        var failure: StoreError?
        try io { () throws(FileSystemError) in
            try queue.sorted { record in
                let length = json ? 0 : Int(record.payload[0]) << 8 | Int(record.payload[1])
                let text = String(decoding: record.payload.dropFirst(json ? 0 : 2), as: UTF8.self)
                do throws(StoreError) {
                    guard let name = OperationFileName(parsing: text), let op = try s.operation(name) else { return true }
                    emit(op, length)
                    return true
                } catch {
                    failure = error
                    return false
                }
            }
        }
        if let failure { throw failure }
    }

    /// Short ids from the index of ids (`Store.sharedPrefixLengths`) when every table shown has a
    /// vouching one and the queue is short (up to `indexLimit` operations): a few bucket reads
    /// instead of a sort of every id of the tables. False, with nothing added, otherwise (a longer
    /// queue is then listed twice: 0.1 s at 100,000).
    private static func shortIDsFromIndex(_ s: Store, table: String?, receipts: [Receipt], queue: RunSorter,
                                          receiptShown: inout [Int: Int]) throws(StoreError) -> Bool {
        // Decided before the queue is listed, so that the other way lists it only once too.
        let existing = Set(try s.tables())
        for t in Set(receipts.map(\.table)).union(table.map { [$0] } ?? existing) {
            guard existing.contains(t), s.idIndexVouches(table: t) else { return false }
        }
        var names: [(name: OperationFileName, key: String)] = []
        var tooMany = false
        try s.forEachOperationName { name throws(StoreError) in
            guard !tooMany, table == nil || name.table == table else { return }
            guard names.count < indexLimit else { tooMany = true; return }
            if let key = try idKey(of: name, in: s) { names.append((name, key)) }
        }
        if tooMany { return false }
        var keys: [String: Set<String>] = [:]
        for n in names { keys[n.name.table, default: []].insert(n.key) }
        for r in receipts { keys[r.table, default: []].insert(ItemID.key(r.id)) }
        var shared: [String: [String: Int]] = [:]
        for (t, set) in keys {
            guard existing.contains(t), let lengths = try s.sharedPrefixLengths(of: set, table: t) else { return false }
            shared[t] = lengths
        }
        func shown(_ key: String, _ table: String) -> Int {
            min(key.unicodeScalars.count, max(ShortIDs.minimum, (shared[table]?[key] ?? 0) + 1))
        }
        for (name, key) in names {
            let length = shown(key, name.table)
            let payload = [UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length)] + Array(name.name.utf8)
            try io { () throws(FileSystemError) in try queue.add(key: RunSorter.numberKey(name.sequence), payload: payload) }
        }
        for (i, r) in receipts.enumerated() { receiptShown[i] = shown(ItemID.key(r.id), r.table) }
        return true
    }

    static let indexLimit = 10_000

    /// The id's key of an operation file: from its name, or from the file for a hashed name.
    static func idKey(of name: OperationFileName, in s: Store) throws(StoreError) -> String? {
        if let key = IDEncoding.decode(name.encodedID) { return key }
        return try s.operation(name).map { ItemID.key($0.id) }
    }

    /// The sort by id that gives operations (into `queue`, by sequence, after the short id's
    /// length in 2 bytes) and receipts (`receiptShown`) their short ids.
    private static func shortIDs(_ s: Store, table: String?, receipts: [Receipt], budget: Int, folders: [String],
                                 queue: RunSorter, receiptShown: inout [Int: Int]) throws(StoreError) {
        let ids = ShortIDSort(budget: budget, folders: folders)
        var tables = Set(receipts.map(\.table))
        try s.forEachOperationName { name throws(StoreError) in
            guard table == nil || name.table == table else { return }
            tables.insert(name.table)
            guard let key = try idKey(of: name, in: s) else { return }
            try io { () throws(FileSystemError) in try ids.add(table: name.table, key: key, row: [1] + RunSorter.numberKey(name.sequence) + Array(name.name.utf8)) }
        }
        for (i, r) in receipts.enumerated() {
            try io { () throws(FileSystemError) in try ids.add(table: r.table, key: ItemID.key(r.id), row: [2] + Array(String(i).utf8)) }
        }
        for t in tables.sorted() {
            try s.forEachKnownIDKey(table: t) { key throws(StoreError) in try io { () throws(FileSystemError) in try ids.addKnown(table: t, key: key) } }
        }
        var failure: FileSystemError?
        var shownOf: [Int: Int] = [:]
        try io { () throws(FileSystemError) in
            try ids.merge { row, shown, _, _, _ in
                if row[0] == 2 {
                    shownOf[Int(String(decoding: row.dropFirst(), as: UTF8.self)) ?? -1] = shown
                    return true
                }
                let length = [UInt8(truncatingIfNeeded: shown >> 8), UInt8(truncatingIfNeeded: shown)]
                do throws(FileSystemError) { try queue.add(key: Array(row[1..<9]), payload: length + Array(row[9...])) } catch {
                    failure = error
                    return false
                }
                return true
            }
        }
        if let failure { throw .io(failure) }
        receiptShown = shownOf
    }

    private static func io(_ call: () throws(FileSystemError) -> Void) throws(StoreError) {
        do { try call() } catch { throw .io(error) }
    }

    /// What an operation changes, in a few words.
    static func summary(_ op: PendingOperation) -> String {
        switch op.kind {
        case .insert: return quoted(op.item.text)
        case .delete: return "was " + quoted(op.item.text)
        case .update:
            let changed = OperationLog.replacedValues(old: op.base?.fields ?? [:], new: op.item.fields).keys.sorted()
            return changed.isEmpty ? "no field changes" : "changes " + changed.joined(separator: ", ")
        }
    }

    static func lost(_ r: Receipt) -> String {
        let parts = r.lost.keys.sorted().compactMap { side -> String? in
            guard let values = r.lost[side], !values.isEmpty else { return nil }
            let fields = values.keys.sorted().map { "\($0)=\(values[$0]!.compactText)" }
            return "lost \(side): " + fields.joined(separator: " ")
        }
        let text = parts.isEmpty ? "nothing lost" : parts.joined(separator: "; ")
        return r.note.map { text + " (\($0))" } ?? text
    }

    private static func quoted(_ s: String?) -> String { s.map { JSONValue.string($0).compactText } ?? "(no text)" }
}
