import TodoBasics
import TodoModel
import TodoStore

/// `list` and `export` of a table of any size in bounded memory, reading each item file once.
///
/// In the default order (the items' numbers) while the index of ids vouches for the table,
/// `NumberedListing` prints as it reads. Otherwise (`--sort`, columns whose widths depend on
/// every row, a stale index) the items go through two sorts:
/// 1. The item files are walked (`Store.forEachItemFile`); each is read once, filtered, and
///    turned into a row (or its JSON) with its `--sort` key (`ListOrder`).
/// 2. A sort by id (`ShortIDSort`) of the rows, the bare ids of hidden items, pending deletes and
///    conflicts, and the numbers of the numbers files: its merge gives each row its number (the
///    default order) and, with an id column, its shortest unique prefix from its two neighbours.
/// 3. A sort by the whole order key, whose merge prints, up to `--limit`.
/// Both sorts are `RunSorter`s: in memory up to 8 MB, then runs under `.todo/cache` (a temporary
/// folder for a read-only replica), merged one record at a time. Memory is the two buffers, 24
/// bytes per pending item of the table (`PendingKinds`), and column widths: not the items.
struct ListPipeline {
    let query: ListQuery
    let table: String
    let store: Store
    let ctx: CommandContext

    /// Prints the list; returns the hand-edited item files met, for the caller to warn about.
    func run() throws(CLIError) -> [HandEdit] {
        try StoreAccess.startStreaming(ctx)
        let latest = try pendingOperations()
        if NumberedListing.serves(query) {
            let numbered: NumberedIDs?
            do { numbered = try store.numberedIDs(table: table, minimum: ShortIDs.minimum) } catch { throw .store(error) }
            if let numbered {
                return try NumberedListing(query: query, table: table, store: store, ctx: ctx, pending: latest).run(numbered)
            }
        }
        return try sorted(latest)
    }

    private func sorted(_ latest: PendingKinds) throws(CLIError) -> [HandEdit] {
        let folders = store.scratchFolders(environment: ctx.environment)
        // TODO_TEST_SORT_BUDGET (bytes) makes small tables spill runs, and reports the sorts on
        // stderr: how tests see that the items were not all held.
        let budget = ctx.environment["TODO_TEST_SORT_BUDGET"].flatMap { Int($0) }
        let byID = ShortIDSort(budget: budget ?? 8 << 20, folders: folders)
        let ordered = RunSorter(budget: budget ?? 8 << 20, folders: folders)
        let withShortIDs = query.output == .text && query.columns.contains(.id)
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
                let payload: [UInt8]
                switch query.output {
                case .json: payload = JSONOutput.item(item).canonicalBytes(nestedAt: 1)
                case .jsonLines: payload = JSONOutput.item(item).compactBytes()
                case .text:
                    let row = NumberedListing.row(item, pending: latest[IDEncoding.fileName(for: item.id)], edited: changes != nil, query.columns)
                    for (i, cell) in row.cells.enumerated() { widths[i] = max(widths[i], cell.count) }
                    payload = row.encoded()
                }
                let key = ListOrder.fieldKey(item, sort: query.sort)
                try Self.io { () throws(FileSystemError) in try byID.add(table: table, key: idKey, row: Self.frame(key) + payload) }
            }
            if withShortIDs {
                try store.forEachKnownIDKeyWithoutItems(table: table) { key throws(StoreError) in
                    try Self.io { () throws(FileSystemError) in try byID.addKnown(table: table, key: key) }
                }
            }
            try store.forEachNumber(table: table) { number, key throws(StoreError) in
                try Self.io { () throws(FileSystemError) in try byID.addNumber(table: table, key: key, number: number) }
                return true
            }
        } catch {
            throw .store(error)
        }
        let widest = try number(byID, into: ordered)
        if withShortIDs, let i = query.columns.firstIndex(of: .id) { widths[i] = widest }
        var output = ListOutput(query: query, printer: ListPrinter(query, widths: widths, terminal: ctx.terminal), console: ctx.console)
        do { try ordered.sorted { output.emit($0.payload) } } catch { throw .store(.io(error)) }
        output.finish()
        if budget != nil {
            for (name, runs, peak) in [("by id", byID.runsWritten, byID.peakRecords), ("by order", ordered.runsWritten, ordered.peakRecords)] {
                ctx.console.err("sort \(name): \(runs) runs, at most \(peak) rows in memory")
            }
        }
        return edits
    }

    /// The kind of each item's last pending operation, by encoded id: one walk of the
    /// operations folder, no file opened (`PendingKinds`: 24 bytes per pending item).
    private func pendingOperations() throws(CLIError) -> PendingKinds {
        var latest = PendingKinds()
        do throws(StoreError) {
            try store.forEachOperationName { op in
                guard op.table == table else { return }
                latest.insert(op)
            }
        } catch {
            throw .store(error)
        }
        latest.finish()
        return latest
    }

    /// Merges the sort by id: each row gets its number, and its short id in the text form, and
    /// goes on to the sort by order. Returns the widest short id.
    private func number(_ byID: ShortIDSort, into ordered: RunSorter) throws(CLIError) -> Int {
        var width = 0
        var failure: FileSystemError?
        do {
            try byID.merge { payload, shown, unique, key, number in
                let (fieldKey, rest) = Self.unframe(payload)
                var row = rest
                if query.output == .text {
                    var decoded = ListRow(decoding: rest)
                    decoded.shortID = ShortIDSort.shortID(decoded.id, shown: shown)
                    decoded.unique = unique
                    width = max(width, decoded.shortID.count)
                    row = decoded.encoded()
                }
                do throws(FileSystemError) { try ordered.add(key: fieldKey + ListOrder.tail(number: number, key: key), payload: row) } catch {
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
