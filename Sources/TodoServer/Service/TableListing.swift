import TableProtocol
import TodoModel

/// `GET /tables`: the tables a caller may read, so that a replica can find tables created after
/// it was cloned (issue 19 item 6). The protocol has no such route (§3.1.1 serves two paths and
/// answers 404 to every other); this one is ours, in the protocol's manner: JSON, the same
/// headers, generation and key checks as a query, and the same permissions, so a caller learns
/// only of the tables it could query anyway. Foreign servers answer it 404, which the client
/// takes as "cannot list tables".
///
/// Body: `[{"name": "todoitem", "softDelete": true}, ...]`, sorted by name.
extension TableService {
    /// `/tables` or `/tables/` (one trailing slash is ignored, §3.1.1).
    static func isListing(_ target: HTTPRequestTarget) -> Bool {
        var segments = target.segments
        if segments.last == "" { segments.removeLast() }
        return segments == ["tables"]
    }

    func listTables(_ request: HTTPRequest, _ target: HTTPRequestTarget, _ generation: inout Generation?,
                    _ ticket: inout DurabilityTicket) throws(ServiceError) -> HTTPResponse {
        let gen = try GenerationSelector.select(target.queryItems, request.headers, configuration)
        generation = gen
        let caller = try CredentialCheck.caller(request.headers, configuration)
        guard request.method == "GET" else {
            throw ServiceError(405, "The method \(request.method) is not allowed on the list of tables.", allow: "GET, OPTIONS")
        }
        let names = try storageRead { () throws(StorageError) in try storage.tableNames() }
        var rows: [JSONValue] = []
        for name in names {
            guard case .allow = AccessDecision.decide(caller, .read, access.table(name)),
                  let schema = try storageRead({ () throws(StorageError) in try storage.schema(name, ticket: &ticket) }) else { continue }
            rows.append(["name": .string(schema.name), "softDelete": .bool(schema.softDelete)])
        }
        return json(200, .array(rows))
    }
}
