import TodoBasics
import TodoModel
import TodoStore

/// `list` and `export` of a table of any size in bounded memory, reading each item file once.
///
/// 1. The item files are walked (`Store.forEachItemFile`); each is read once, filtered, and
///    turned into a row (or its JSON) with its sort key (`ListOrder`).
/// 2. Short ids need every id of the table in id order: with an id column, rows (and the bare
///    ids of hidden items, pending deletes and conflicts) go through a sort by id first, whose
///    merge gives each id its shortest unique prefix from its two neighbours.
/// 3. A sort by the sort key, whose merge prints, up to `--limit`.
/// Both sorts are `RunSorter`s: in memory up to 8 MB, then runs under `.todo/cache` (a temporary
/// folder for a read-only replica), merged one record at a time. Memory is the two buffers, the
/// names of the table's pending operations, and column widths: not the items.
struct ListPipeline {
    let query: ListQuery
    let table: String
    let store: Store
    let ctx: CommandContext

    /// Prints the list; returns the hand-edited item files met, for the caller to warn about.
    func run() throws(CLIError) -> [HandEdit] {
        try StoreAccess.startStreaming(ctx)
        let latest = try pendingOperations()
        let folders = store.scratchFolders(environment: ctx.environment)
        let withShortIDs = query.output == .text && query.columns.contains(.id)
        // TODO_TEST_SORT_BUDGET (bytes) makes small tables spill runs, and reports the sorts on
        // stderr: how tests see that the items were not all held.
        let budget = ctx.environment["TODO_TEST_SORT_BUDGET"].flatMap { Int($0) }
        let byID = ShortIDSort(budget: budget ?? 8 << 20, folders: folders)
        let ordered = RunSorter(budget: budget ?? 8 << 20, folders: folders)
        var edits: [HandEdit] = []
        var widths = [Int](repeating: 0, count: query.columns.count)
        do throws(StoreError) {
            try store.forEachItemFile(table: table) { file throws(StoreError) in
                let item = file.item
                let changes = file.handChanges
                if let changes { edits.append(HandEdit(table: table, id: item.id, path: file.path, subject: .item(changes: changes))) }
                let idKey = ItemID.key(item.id)
                guard query.shows(item) else {
                    if withShortIDs { try Self.io { () throws(FileSystemError) in try byID.addKnown(table: table, key: idKey) } }
                    return
                }
                let op = latest[IDEncoding.fileName(for: item.id)]
                let key = ListOrder.key(item, sequence: op?.sequence, sort: query.sort)
                switch query.output {
                case .json: try Self.add(ordered, key, JSONOutput.item(item).canonicalBytes(nestedAt: 1))
                case .jsonLines: try Self.add(ordered, key, JSONOutput.item(item).compactBytes())
                case .text:
                    let row = ListRow(id: item.id, done: item.isComplete, pending: op?.kind ?? "", edited: changes != nil,
                                      cells: query.columns.map { ListPrinter.cell($0, of: item) })
                    for (i, cell) in row.cells.enumerated() { widths[i] = max(widths[i], cell.count) }
                    if withShortIDs {
                        try Self.io { () throws(FileSystemError) in try byID.add(table: table, key: idKey, row: Self.frame(key) + row.encoded()) }
                    } else {
                        try Self.add(ordered, key, row.encoded())
                    }
                }
            }
            if withShortIDs {
                for key in try store.knownIDKeysWithoutItems(table: table) {
                    try Self.io { () throws(FileSystemError) in try byID.addKnown(table: table, key: key) }
                }
            }
        } catch {
            throw .store(error)
        }
        if withShortIDs, let i = query.columns.firstIndex(of: .id) {
            widths[i] = try shortenIDs(byID, into: ordered)
        }
        try print(ordered, widths: widths)
        if budget != nil {
            for (name, runs, peak) in [("by id", byID.runsWritten, byID.peakRecords), ("by order", ordered.runsWritten, ordered.peakRecords)] {
                ctx.console.err("sort \(name): \(runs) runs, at most \(peak) rows in memory")
            }
        }
        return edits
    }

    /// The kind and queue position of each item's last pending operation, by encoded id: one
    /// walk of the operations folder, no file opened (about 100 bytes per pending item).
    private func pendingOperations() throws(CLIError) -> [String: (kind: String, sequence: Int)] {
        var latest: [String: (kind: String, sequence: Int)] = [:]
        do throws(StoreError) {
            try store.forEachOperationName { op in
                guard op.table == table, op.sequence > latest[op.encodedID]?.sequence ?? Int.min else { return }
                latest[op.encodedID] = (op.kind.rawValue, op.sequence)
            }
        } catch {
            throw .store(error)
        }
        return latest
    }

    /// Merges the sort by id: each row gets its short id and goes on to the sort by order.
    /// Returns the widest short id.
    private func shortenIDs(_ byID: ShortIDSort, into ordered: RunSorter) throws(CLIError) -> Int {
        var width = 0
        var failure: FileSystemError?
        do {
            try byID.merge { payload, shown, unique in
                let (orderKey, rowBytes) = Self.unframe(payload)
                var row = ListRow(decoding: rowBytes)
                row.shortID = ShortIDSort.shortID(row.id, shown: shown)
                row.unique = unique
                width = max(width, row.shortID.count)
                do throws(FileSystemError) { try ordered.add(key: orderKey, payload: row.encoded()) } catch {
                    failure = error
                    return false
                }
                return true
            }
        } catch {
            throw .store(.io(error))
        }
        if let failure { throw .store(.io(failure)) }
        return width
    }

    /// The last sort's merge, printed: up to `--limit` rows, JSON written one element at a time.
    private func print(_ ordered: RunSorter, widths: [Int]) throws(CLIError) {
        let printer = ListPrinter(columns: query.columns, widths: widths, color: query.color,
                                  width: ctx.terminal.isTerminal ? ctx.terminal.width : nil)
        var count = 0
        do {
            try ordered.sorted { record in
                switch query.output {
                case .json:
                    ctx.console.outRaw(Array((count == 0 ? "[\n  " : ",\n  ").utf8) + record.payload)
                case .jsonLines:
                    ctx.console.outRaw(record.payload + [10])
                case .text:
                    ctx.console.out(printer.line(ListRow(decoding: record.payload)))
                }
                count += 1
                return count < (query.limit ?? Int.max)
            }
        } catch {
            throw .store(.io(error))
        }
        if query.output == .json { ctx.console.outRaw(Array((count == 0 ? "[]\n" : "\n]\n").utf8)) }
    }

    private static func add(_ sorter: RunSorter, _ key: [UInt8], _ payload: [UInt8]) throws(StoreError) {
        do { try sorter.add(key: key, payload: payload) } catch { throw .io(error) }
    }

    private static func io(_ call: () throws(FileSystemError) -> Void) throws(StoreError) {
        do { try call() } catch { throw .io(error) }
    }

    /// The order key, after its length in 4 bytes, then the row.
    static func frame(_ key: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: key.count >> shift)) }
        return out + key
    }

    static func unframe(_ payload: [UInt8]) -> (key: [UInt8], rest: [UInt8]) {
        var n = 0
        for b in 0..<4 { n |= Int(payload[b]) << (8 * b) }
        return (Array(payload[4..<4 + n]), Array(payload[(4 + n)...]))
    }
}
