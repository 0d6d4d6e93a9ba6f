import TableProtocol
import TodoModel

/// The rows one query answers with, their count and the schema to render them with, all taken from
/// one snapshot of the table (see `TableSnapshot`): a row is never paired with a schema from before
/// the write that gave it a column, a page never holds one row twice, and a count is of that page's
/// table.
struct QuerySelection: Sendable {
    var schema: TableSchema
    var rows: [StoredRow]
    /// `$inlinecount=allpages`: rows passing the filter and the deleted rule, before `$skip` and
    /// the limit (protocol §8.1).
    var count: Int?
    /// At least one more row follows the page (the G2 `Link` needs it, §8.9.2).
    var more: Bool
    /// Index entries a pull-shaped page visited (tests check it is O(page), §8.12).
    var examined = 0
}

/// How a `GET /tables/{table}` picks its rows: the table's rows; deleted rows dropped (§7.2);
/// `$filter`; order; `$skip`; limit (§8.1). Planned once from the request, then `take` runs under
/// the table's read lock and `finish` outside it.
///
/// Queries of the incremental-pull shape (§8.12) read the (updatedAt, id) index from their cursor
/// and cost O(page); the default order walks the id index and costs O(skip + page) without a count;
/// any other order copies the table under the lock and filters and sorts the copy after it.
struct QueryPlan {
    let options: ODataQueryOptions
    let includeDeleted: Bool
    /// User columns the query names (in `$filter`, `$orderby` or `$select`).
    let referenced: Set<String>
    let top: Int
    let skip: Int
    let countAll: Bool
    let order: OrderBy
    let pullShape: PullShape?
    let idLookup: IDLookup?
    /// Owner mode: the rows of other users are not there for this query (issue 17).
    let ownership: RowOwnership

    init(_ query: QueryParameters, pageSize: Int, owner ownership: RowOwnership = .everyRow) throws(ServiceError) {
        self.ownership = ownership
        do {
            options = try ODataQueryOptions(filter: query.filter, orderBy: query.orderby, top: query.top, skip: query.skip,
                                            inlineCount: query.inlinecount)
        } catch {
            throw .badRequest(error.message)
        }
        includeDeleted = query.includeDeleted
        var referenced = options.referencedColumns
        for name in query.select ?? [] where name.lowercased() != "id" && SystemProperty(anySpelling: name) == nil {
            referenced.insert(name)
        }
        self.referenced = referenced
        top = options.top ?? pageSize
        skip = options.skip ?? 0
        countAll = options.inlineCount == .allPages
        order = (options.orderBy ?? .byID).withIDTieBreak
        pullShape = countAll ? nil : PullShape.recognise(filter: options.filter, orderBy: options.orderBy)
        idLookup = IDLookup.recognise(options.filter)
    }

    /// What `take` read: the page, or (for a general order) a copy of the table to finish outside
    /// the lock.
    enum Taken: Sendable {
        case selected(QuerySelection)
        case unsorted(schema: TableSchema, rows: [StoredRow])
    }

    /// Runs under the table's read lock: everything the answer shows comes from `snapshot`.
    func take(from snapshot: TableSnapshot) -> Taken {
        let schema = snapshot.schema
        // A column the table does not have yet gives an empty result, not an error (§8.5).
        if referenced.contains(where: { schema.columns[$0] == nil }) {
            return .selected(QuerySelection(schema: schema, rows: [], count: countAll ? 0 : nil, more: false))
        }
        if let idLookup { return .selected(oneRow(idLookup, snapshot)) }
        // The index compares a cursor's id as a string; an integer id never equals one (§8.6.2).
        if let pullShape, schema.idType == .string || pullShape.lowerBound?.id == nil {
            return .selected(pullPage(pullShape, snapshot))
        }
        if order == .byID { return .selected(idOrderPage(snapshot)) }
        return .unsorted(schema: schema, rows: snapshot.allRows())
    }

    /// Runs after the lock is released: filters and sorts a copied table.
    func finish(_ taken: Taken) -> QuerySelection {
        switch taken {
        case .selected(let selection):
            return selection
        case .unsorted(let schema, let rows):
            let matching = rows.filter { row in
                visible(row) && (options.filter?.matches(RowValues(row, schema)) ?? true)
            }
            let keyed = matching.map { (order.keyValues(of: RowValues($0, schema)), $0) }
            let sorted = keyed.sorted { order.compare($0.0, $1.0) < 0 }.map(\.1)
            return page(Array(sorted.dropFirst(min(skip, sorted.count)).prefix(top + 1)), schema,
                        count: countAll ? matching.count : nil)
        }
    }

    /// Reads the (updatedAt, id) index from the cursor in one pass, checking every row against
    /// the full filter, so the answer never depends on the recogniser being clever.
    private func pullPage(_ shape: PullShape, _ snapshot: TableSnapshot) -> QuerySelection {
        let limit = top + 1
        var rows: [StoredRow] = []
        var skipped = 0
        let examined = snapshot.scan(updatedAfter: shape.lowerBound.map { $0.updatedAt.milliseconds }, inclusive: true) { row in
            if !visible(row) { return true }
            if let bound = shape.lowerBound, !bound.admits(updatedAt: WireInstant(milliseconds: row.updatedAt), id: row.id) {
                return true
            }
            if let residual = shape.residual, !residual.matches(RowValues(row, snapshot.schema)) { return true }
            if skipped < skip {
                skipped += 1
                return true
            }
            rows.append(row)
            return rows.count < limit
        }
        var selection = page(rows, snapshot.schema, count: nil)
        selection.examined = examined
        return selection
    }

    /// A filter that names one id (the client's one-row query, protocol §10.3): at most one row
    /// can match, so it is looked up, not scanned for. O(log n).
    private func oneRow(_ lookup: IDLookup, _ snapshot: TableSnapshot) -> QuerySelection {
        let matching = snapshot.row(id: lookup.id).map { [$0] } ?? []
        let rows = matching.filter { visible($0) && (options.filter?.matches(RowValues($0, snapshot.schema)) ?? true) }
        var selection = page(Array(rows.dropFirst(min(skip, rows.count)).prefix(top + 1)), snapshot.schema, count: countAll ? rows.count : nil)
        selection.examined = matching.count
        return selection
    }

    /// The default order: walks the id index, no sort; a count needs the whole walk.
    private func idOrderPage(_ snapshot: TableSnapshot) -> QuerySelection {
        var matched = 0
        var rows: [StoredRow] = []
        let schema = snapshot.schema
        snapshot.forEachRowInIDOrder { row in
            guard visible(row), options.filter?.matches(RowValues(row, schema)) ?? true else { return true }
            if matched >= skip && rows.count <= top { rows.append(row) }
            matched += 1
            return countAll || rows.count <= top
        }
        return page(rows, snapshot.schema, count: countAll ? matched : nil)
    }

    /// The deleted rule (§7.2) and owner mode: whether a row is there for this query at all.
    private func visible(_ row: StoredRow) -> Bool {
        (includeDeleted || !row.deleted) && ownership.sees(row)
    }

    /// At most `top` rows; one more than that means another page follows.
    private func page(_ rows: [StoredRow], _ schema: TableSchema, count: Int?) -> QuerySelection {
        var rows = rows
        var more = false
        if rows.count > top {
            more = true
            rows.removeLast(rows.count - top)
        }
        return QuerySelection(schema: schema, rows: rows, count: count, more: more)
    }
}

/// A stored row as the filter evaluator sees it (protocol §8.5). The id of an `autoIncrement`
/// table is a number, so `id eq 5` and `$orderby=id` work as on a SQL table with integer ids.
struct RowValues: FilterRow {
    let row: StoredRow
    var integerIDs = false

    init(row: StoredRow) { self.row = row }

    init(_ row: StoredRow, _ schema: TableSchema) {
        self.row = row
        integerIDs = schema.idType == .autoIncrement
    }

    func value(of member: ODataMember) -> FilterValue {
        switch member {
        case .id where integerIDs: return IntegerID.value(ofStored: row.id).map { .number(Double($0)) } ?? .string(row.id)
        case .id: return .string(row.id)
        case .system(.createdAt): return .date(WireInstant(milliseconds: row.createdAt))
        case .system(.updatedAt): return .date(WireInstant(milliseconds: row.updatedAt))
        case .system(.version): return .string(VersionText.encode(row.version))
        case .system(.deleted): return .bool(row.deleted)
        case .column(let name): return row.columns[name].map(FilterValue.init) ?? .null
        }
    }
}
