import TodoModel
import TodoStore

/// `list` and `export` in the default order, the items' numbers, printed as the item files are
/// read: the first line comes at once and nothing grows with the table but one byte per number
/// (`NumberedIDs`, from the index of ids). Short ids come from the index's neighbours, the id
/// column's width from the widest of them, so no row has to wait for the others; hence only
/// columns before the text whose width is known up front (id, done) qualify.
struct NumberedListing {
    let query: ListQuery
    let table: String
    let store: Store
    let ctx: CommandContext
    /// The kind of each item's last pending operation, by encoded id.
    let pending: PendingKinds

    /// Whether a query can be printed in number order as read: no `--sort`, and in the text
    /// form no padded column whose width depends on every row.
    static func serves(_ query: ListQuery) -> Bool {
        query.sort.isEmpty && (query.output != .text || query.columns.dropLast().allSatisfy { $0 == .id || $0 == .done })
    }

    func run(_ numbered: NumberedIDs) throws(CLIError) -> [HandEdit] {
        var widths = [Int](repeating: 0, count: query.columns.count)
        if let i = query.columns.firstIndex(of: .id) { widths[i] = numbered.widestShortID }
        var output = ListOutput(query: query, printer: ListPrinter(query, widths: widths, terminal: ctx.terminal), console: ctx.console)
        var edits: [HandEdit] = []
        do throws(StoreError) {
            try store.forEachItemFileByNumber(table: table, numbered) { number, file in
                let item = file.item
                let changes = file.handChanges
                if let changes { edits.append(HandEdit(table: table, id: item.id, path: file.path, subject: .item(changes: changes))) }
                guard query.shows(item) else { return true }
                switch query.output {
                case .json: return output.emit(json: JSONOutput.item(item).canonicalBytes(nestedAt: 1))
                case .jsonLines: return output.emit(json: JSONOutput.item(item).compactBytes())
                case .text:
                    var row = Self.row(item, pending: pending[IDEncoding.fileName(for: item.id)], edited: changes != nil, query.columns)
                    let length = item.id.unicodeScalars.count
                    let unique = numbered.uniqueLength(number)
                    row.shortID = ShortIDSort.shortID(item.id, shown: min(length, max(ShortIDs.minimum, unique)))
                    row.unique = min(length, unique)
                    return output.emit(row: row)
                }
            }
        } catch {
            throw .store(error)
        }
        output.finish()
        return edits
    }

    /// An item's row of the text form, before its short id is known.
    static func row(_ item: Item, pending: String?, edited: Bool, _ columns: [ListColumn]) -> ListRow {
        ListRow(id: item.id, done: item.isComplete, pending: pending ?? "", edited: edited,
                cells: columns.map { ListPrinter.cell($0, of: item) })
    }
}

/// The kind of each pending item's last operation (`insert`, `update`, `delete`), by encoded
/// id, as `list` shows it: in 24 bytes an item (`ItemKeyMap`), not a dictionary of strings.
struct PendingKinds {
    private var map = ItemKeyMap()
    private static let kinds = PendingOperation.Kind.allCases

    mutating func insert(_ name: OperationFileName) {
        map.insert(name.encodedID, order: name.sequence, value: UInt8(Self.kinds.firstIndex(of: name.kind) ?? 0))
    }

    mutating func finish() { map.finish() }

    subscript(encodedID: String) -> String? {
        map[encodedID].map { Self.kinds[Int($0)].rawValue }
    }
}
