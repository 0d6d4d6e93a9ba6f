import TableProtocol
import TodoModel

/// Where the next page of one query starts, in cursor or skip mode (protocol §10.5).
///
/// Cursor mode asks for rows strictly after (T, I). Skip mode asks for `updatedAt ge T` and
/// skips the rows at T it already has. Plain mode (rows without `updatedAt`) only skips.
struct PageCursor {
    enum Mode: Equatable { case cursor, skip, plain }

    var mode: Mode
    /// The last row's updatedAt text (cursor), or the largest one seen (skip).
    var updatedAt: String?
    var id: String?
    var skip = 0
    /// Ids applied at exactly `updatedAt` in this pull: a row among them coming back means the
    /// server cannot page by (updatedAt, id) (hidden timestamp precision, §10.5.5).
    private var appliedAtT = Set<String>()

    init(mode: TableConfig.CursorMode, token: TableConfig.Token?) {
        self.mode = mode == .skip ? .skip : .cursor
        updatedAt = token?.updatedAt
        id = mode == .cursor ? token?.id : nil
        if self.mode == .cursor, updatedAt != nil, id == nil { self.mode = .skip }
        if self.mode == .cursor, let id { appliedAtT = [ItemID.key(id)] }
    }

    /// The page request for this cursor.
    func query(filter: String?, generation: Generation, pageSize: Int) -> PageQuery {
        let updatedAtName = generation.name(.updatedAt)
        switch mode {
        case .cursor:
            let condition = updatedAt.map {
                PullFilterText.cursorCondition(updatedAtName: updatedAtName, updatedAtText: $0, id: id ?? "")
            }
            return PageQuery(filter: PullFilterText.combine(query: filter, condition: condition),
                             orderBy: "\(updatedAtName) asc,id asc", top: pageSize)
        case .skip:
            let condition = updatedAt.map { PullFilterText.fallbackCondition(updatedAtName: updatedAtName, updatedAtText: $0) }
            return PageQuery(filter: PullFilterText.combine(query: filter, condition: condition),
                             orderBy: "\(updatedAtName) asc", top: pageSize, skip: skip)
        case .plain:
            return PageQuery(filter: filter, orderBy: "id asc", top: pageSize, skip: skip)
        }
    }

    /// Switches to skip mode from the stored token (after a 400/501, or a row out of order).
    mutating func fallBack(to token: TableConfig.Token?) {
        mode = .skip
        updatedAt = token?.updatedAt
        id = nil
        skip = 0
        appliedAtT = []
    }

    /// Moves past a page of applied rows, of `received` rows as sent (rows without a valid id are
    /// not applied, but `$skip` counts them). Returns false when a cursor-mode page held a row
    /// that was not after the cursor: the caller falls back to skip mode.
    mutating func advance(past rows: [Item], received: Int) -> Bool {
        let stamped = rows.filter { $0.system.updatedAt != nil }
        if stamped.isEmpty {
            mode = .plain
            skip += received
            return true
        }
        switch mode {
        case .cursor:
            var inOrder = true
            for row in stamped {
                let text = row.system.updatedAt!
                let key = ItemID.key(row.id)
                let order = updatedAt.map { Self.compare(text, $0) } ?? 1
                if order < 0 || (order == 0 && appliedAtT.contains(key)) { inOrder = false }
                if order > 0 { appliedAtT = [] }
                if order >= 0 {
                    updatedAt = text
                    id = row.id
                }
                appliedAtT.insert(key)
            }
            return inOrder
        case .skip:
            let largest = stamped.map { $0.system.updatedAt! }.max { Self.compare($0, $1) < 0 }!
            if updatedAt == nil || Self.compare(largest, updatedAt!) > 0 {
                updatedAt = largest
                skip = stamped.filter { Self.compare($0.system.updatedAt!, largest) == 0 }.count
            } else {
                skip += received
            }
            return true
        case .plain:
            skip += received
            return true
        }
    }

    /// The token to store after this page; nil in plain mode (nothing to resume from).
    var token: TableConfig.Token? {
        guard mode != .plain, let updatedAt else { return nil }
        return TableConfig.Token(updatedAt: updatedAt, id: mode == .cursor ? id : nil)
    }

    /// Compares two server date texts as instants (texts that do not parse compare as text).
    static func compare(_ a: String, _ b: String) -> Int {
        if let x = WireInstant(wireText: a), let y = WireInstant(wireText: b) { return x < y ? -1 : (x == y ? 0 : 1) }
        return a < b ? -1 : (a == b ? 0 : 1)
    }
}
