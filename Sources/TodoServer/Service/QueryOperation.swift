import TableProtocol
import TodoModel

/// `GET /tables/{table}` (protocol §8). Queries of the incremental-pull shape (§8.12) read the
/// (updatedAt, id) index from their cursor and cost O(page); any other query scans the table.
extension TableService {
    func runQuery(_ c: RequestContext) throws(ServiceError) -> HTTPResponse {
        let options: ODataQueryOptions
        do {
            options = try ODataQueryOptions(filter: c.query.filter, orderBy: c.query.orderby, top: c.query.top,
                                            skip: c.query.skip, inlineCount: c.query.inlinecount)
        } catch {
            throw .badRequest(error.message)
        }
        let schema = storage.schema(c.schema.name) ?? c.schema
        let countAll = options.inlineCount == .allPages
        // A column the table does not have yet gives an empty result, not an error (§8.5).
        var referenced = options.referencedColumns
        for name in c.query.select ?? [] where name.lowercased() != "id" && SystemProperty(anySpelling: name) == nil {
            referenced.insert(name)
        }
        if referenced.contains(where: { schema.columns[$0] == nil }) {
            return page([], count: countAll ? 0 : nil, link: nil, c, schema)
        }
        let top = options.top ?? configuration.pageSize
        let skip = options.skip ?? 0
        var rows: [StoredRow]
        var count: Int? = nil
        var more = false
        let order = (options.orderBy ?? .byID).withIDTieBreak
        if !countAll, let shape = PullShape.recognise(filter: options.filter, orderBy: options.orderBy) {
            rows = pullPage(c.schema.name, shape, includeDeleted: c.query.includeDeleted, skip: skip, limit: top + 1)
        } else if order == .byID {
            // The default order: walk the id index, no sort; a count needs the whole walk.
            var matched = 0
            rows = []
            storage.forEachRowInIDOrder(c.schema.name) { row in
                guard c.query.includeDeleted || !row.deleted, options.filter?.matches(RowValues(row: row)) ?? true else { return true }
                if matched >= skip && rows.count <= top { rows.append(row) }
                matched += 1
                return countAll || rows.count <= top
            }
            if countAll { count = matched }
        } else {
            var matching = storage.allRows(c.schema.name).filter { row in
                (c.query.includeDeleted || !row.deleted) && (options.filter?.matches(RowValues(row: row)) ?? true)
            }
            if countAll { count = matching.count }
            let keyed = matching.map { (order.keyValues(of: RowValues(row: $0)), $0) }
            matching = keyed.sorted { order.compare($0.0, $1.0) < 0 }.map(\.1)
            rows = Array(matching.dropFirst(min(skip, matching.count)).prefix(top + 1))
        }
        if rows.count > top {
            more = true
            rows.removeLast(rows.count - top)
        }
        // G2 sends a next link only without $top, for a full page with more rows behind it (§8.9.2).
        let link = c.generation == .mobileApps && c.query.top == nil && rows.count == configuration.pageSize && more
            ? nextLink(c, schema, skip: skip) : nil
        return page(rows, count: count, link: link, c, schema)
    }

    /// Reads the index from the cursor, checking every row against the full filter, so the answer
    /// never depends on the recogniser being clever.
    private func pullPage(_ table: String, _ shape: PullShape, includeDeleted: Bool, skip: Int, limit: Int) -> [StoredRow] {
        var after = shape.lowerBound.map { $0.updatedAt.milliseconds }
        var inclusive = true
        var result: [StoredRow] = []
        var skipped = 0
        let chunk = max(limit, 64)
        while result.count < limit {
            let batch = storage.rows(table, updatedAfter: after, inclusive: inclusive, includeDeleted: includeDeleted, limit: chunk)
            for row in batch {
                if let bound = shape.lowerBound, !bound.admits(updatedAt: WireInstant(milliseconds: row.updatedAt), id: row.id) { continue }
                if let residual = shape.residual, !residual.matches(RowValues(row: row)) { continue }
                if skipped < skip { skipped += 1; continue }
                result.append(row)
                if result.count == limit { break }
            }
            guard batch.count == chunk, let last = batch.last else { break }
            after = last.updatedAt
            inclusive = false  // updatedAt is strictly increasing within a table: no row shares it
        }
        return result
    }

    private func page(_ rows: [StoredRow], count: Int?, link: String?, _ c: RequestContext, _ schema: TableSchema) -> HTTPResponse {
        let items = c.renderer.renderArray(rows, schema: schema)
        var body: [UInt8]
        if let count {
            body = Array(#"{"count":"#.utf8) + Array(String(count).utf8) + Array(#","results":"#.utf8) + items + [UInt8(ascii: "}")]
        } else {
            body = items
        }
        var response = HTTPResponse(status: 200, body: body)
        response.headers.set(name: "Content-Type", value: "application/json; charset=utf-8")
        if let link { response.headers.set(name: "Link", value: link + "; rel=next") }
        return response
    }

    /// The request's parameters in their order, `$skip` replaced by skip + P (or appended), each
    /// name and value percent-encoded, and no angle brackets (§8.9.2).
    private func nextLink(_ c: RequestContext, _ schema: TableSchema, skip: Int) -> String {
        var pairs: [(String, String)] = []
        var replaced = false
        for item in c.target.queryItems {
            if item.name.lowercased() == "$skip" {
                pairs.append((item.name, String(skip + configuration.pageSize)))
                replaced = true
            } else {
                pairs.append((item.name, item.value))
            }
        }
        if !replaced { pairs.append(("$skip", String(skip + configuration.pageSize))) }
        let query = pairs.map { PercentEncoding.encode($0.0) + "=" + PercentEncoding.encode($0.1) }.joined(separator: "&")
        return "\(c.baseURL)/tables/\(schema.name)?\(query)"
    }
}

/// A stored row as the filter evaluator sees it (protocol §8.5).
struct RowValues: FilterRow {
    let row: StoredRow

    func value(of member: ODataMember) -> FilterValue {
        switch member {
        case .id: return .string(row.id)
        case .system(.createdAt): return .date(WireInstant(milliseconds: row.createdAt))
        case .system(.updatedAt): return .date(WireInstant(milliseconds: row.updatedAt))
        case .system(.version): return .string(VersionText.encode(row.version))
        case .system(.deleted): return .bool(row.deleted)
        case .column(let name): return row.columns[name].map(FilterValue.init) ?? .null
        }
    }
}
