import TableProtocol
import TodoModel

/// `GET /tables/{table}` (protocol §8): the rows, their count and the schema they are rendered
/// with come from one snapshot of the table (`QueryPlan`), then the page is rendered outside the
/// table's lock.
extension TableService {
    func runQuery(_ c: RequestContext, _ ticket: inout DurabilityTicket) throws(ServiceError) -> HTTPResponse {
        let plan = try QueryPlan(c.query, pageSize: configuration.pageSize, owner: c.ownership)
        guard let selection = try storageRead({ () throws(StorageError) in try storage.select(c.table.name, plan, ticket: &ticket) }) else {
            throw .notFound("The table '\(c.table.name)' does not exist.")
        }
        // G2 sends a next link only without $top, for a full page with more rows behind it (§8.9.2).
        let link = c.generation == .mobileApps && c.query.top == nil && selection.rows.count == configuration.pageSize
            && selection.more ? nextLink(c, selection.schema, skip: plan.skip) : nil
        return page(selection, link: link, c)
    }

    private func page(_ selection: QuerySelection, link: String?, _ c: RequestContext) -> HTTPResponse {
        let items = c.renderer.renderArray(selection.rows, schema: selection.schema)
        var body: [UInt8]
        if let count = selection.count {
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
