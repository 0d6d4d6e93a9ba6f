import TableProtocol
import TodoBasics
import TodoModel

/// The whole table protocol as one function from request to answer (protocol.md), so every rule is
/// testable without a socket. Checks run in the order of protocol §3.6; the first failure decides
/// the response. Every bad input is a 4xx, never a 500.
///
/// An answer (`HTTPAnswer`) is the response, the `DurabilityTicket` of everything the request read
/// and wrote, and the response to send if that ticket fails: the 503 a write gets when its own
/// fsync fails. The server awaits the tickets of pipelined answers together before sending them
/// (`HTTPConnectionHandler`); `respond(to:)` waits for one at once.
public final class TableService: Sendable {
    let configuration: ServiceConfiguration
    let storage: any TableStore
    let ids: IDGenerator
    let access: AccessPolicy

    public convenience init(configuration: ServiceConfiguration, storage: TableStorage, ids: IDGenerator = .live) throws {
        try self.init(configuration: configuration, store: storage, ids: ids)
    }

    /// The service on any store (`TableStore`): the embedded one or PostgreSQL.
    init(configuration: ServiceConfiguration, store storage: any TableStore, ids: IDGenerator = .live) throws {
        self.configuration = configuration
        self.storage = storage
        self.ids = ids
        access = configuration.accessPolicy
        try TableSetup.prepare(configuration, storage)
    }

    /// The answer to `request`, not yet durable: the caller settles its ticket before sending it.
    public func answer(to request: HTTPRequest) -> HTTPAnswer {
        var generation: Generation? = nil
        var table: TableTarget? = nil
        var ticket = DurabilityTicket.durable
        var response: HTTPResponse
        do {
            response = try handle(request, &generation, &table, &ticket)
        } catch {
            response = render(error, generation)
        }
        finish(&response, request, table)
        guard !ticket.isDurable else { return .durable(response) }
        // The failure answer needs the request's headers only: its body is not kept until then.
        var head = request
        head.body = []
        return HTTPAnswer(response, ticket: ticket) { [generation, table, head] failure in
            var response = self.render(.storageUnavailable(failure), generation)
            self.finish(&response, head, table)
            return response
        }
    }

    /// The response to `request`, once what it reports or shows is durable.
    public func respond(to request: HTTPRequest) -> HTTPResponse {
        answer(to: request).settled()
    }

    /// The error body in the form of the request's generation (protocol §3.5).
    private func render(_ error: ServiceError, _ generation: Generation?) -> HTTPResponse {
        let form = error.form ?? generation ?? .mobileApps
        var response = json(error.status, ErrorBody.json(status: error.status, message: error.message, generation: form))
        if let allow = error.allow { response.headers.set(name: "Allow", value: allow) }
        return response
    }

    /// The response for an error found before the service runs (malformed HTTP, limits, timeouts).
    public func errorResponse(status: Int, message: String) -> HTTPResponse {
        var response = json(status, ErrorBody.json(status: status, message: message, generation: .mobileApps))
        finish(&response, nil)
        return response
    }

    /// `ticket` gathers what the storage calls made for this request need to be durable; it is
    /// `inout`, not returned, because an error thrown after a read still answers what that read saw.
    private func handle(_ request: HTTPRequest, _ generation: inout Generation?, _ found: inout TableTarget?,
                        _ ticket: inout DurabilityTicket) throws(ServiceError) -> HTTPResponse {
        let target: HTTPRequestTarget
        do { target = try HTTPRequestTarget(parsing: request.target) } catch {
            throw ServiceError(400, "The request target is invalid: \(error.message)", form: .mobileApps)
        }
        if request.method == "OPTIONS" { return options(request) }
        if Self.isListing(target) { return try listTables(request, target, &generation, &ticket) }
        guard let route = Route(target) else {
            throw ServiceError(404, "No route for '\(target.path)'; tables are at /tables/{table}.", form: .mobileApps)
        }
        let gen = try GenerationSelector.select(target.queryItems, request.headers, configuration)
        generation = gen
        let caller = try CredentialCheck.caller(request.headers, configuration)
        let ownership = try authorize(caller, route, request.method, gen)
        let table = try table(route, request, &ticket)
        found = table
        let operation = try Self.operation(request.method, route, gen)
        var id: String? = nil
        if let raw = route.id {
            if table.idType == .autoIncrement {
                guard let n = IntegerID.parse(raw) else {
                    throw .badRequest("Invalid id in the URL: the table '\(table.name)' has integer ids (autoIncrement), "
                        + "and '\(raw)' is not a whole number from 1 to \(IntegerID.maximum).")
                }
                id = IntegerID.stored(n)
            } else {
                if let problem = ItemID.problem(raw) { throw .badRequest("Invalid id in the URL: \(problem).") }
                id = raw
            }
        }
        let query = try QueryParameters.parse(target.queryItems, generation: gen, byID: id != nil)
        let context = RequestContext(request: request, target: target, generation: gen, table: table, query: query,
                                     baseURL: baseURL(request), ownership: ownership)
        switch operation {
        case .query: return try runQuery(context, &ticket)
        case .insert: return try insert(context, &ticket)
        case .read: return try read(context, id: id!, &ticket)
        case .update: return try update(context, id: id, &ticket)
        case .delete: return try delete(context, id: id!, &ticket)
        case .undelete: return try undelete(context, id: id!, &ticket)
        }
    }

    /// Check 6, permissions (issue 17 item 7): before the table is looked up, so a caller without
    /// access learns nothing of which tables exist. A method that names no operation (a 405 later)
    /// needs the lowest level among the table's operations. Returns which rows the request sees.
    private func authorize(_ caller: Caller, _ route: Route, _ method: String, _ generation: Generation)
        throws(ServiceError) -> RowOwnership
    {
        let tableAccess = access.table(route.table)
        guard let operation = (try? Self.operation(method, route, generation))?.access else {
            let lowest = AccessOperation.allCases.map(tableAccess.level).min() ?? .admin
            guard caller.level >= lowest else {
                throw ServiceError(401, "Unauthorized: the table '\(route.table)' needs \(lowest.credential).")
            }
            return .everyRow
        }
        switch AccessDecision.decide(caller, operation, tableAccess) {
        case .allow(let owner): return RowOwnership(ownerMode: tableAccess.owner, owner: owner)
        case .refuse(let needed): throw CredentialCheck.refusal(operation, table: route.table, needed: needed)
        }
    }

    /// Check 7: the table, matched ignoring case. With dynamic tables, a POST insert to an unknown
    /// name goes ahead: the insert itself creates the table (`TableStorage.write(_:creatingWithSoftDelete:_:)`),
    /// so the table appears with its first row, and not at all when the insert is refused.
    private func table(_ route: Route, _ request: HTTPRequest, _ ticket: inout DurabilityTicket)
        throws(ServiceError) -> TableTarget
    {
        let schema: TableSchema?
        do { schema = try storage.schema(route.table, ticket: &ticket) } catch { throw .storageUnavailable(error) }
        if let schema {
            return TableTarget(name: schema.name, softDelete: schema.softDelete, idType: schema.idType,
                               dynamicSchema: configuration.tableOptions[UTF8Text.lowercased(schema.name)]?.dynamicSchema ?? true,
                               isNew: false)
        }
        if configuration.dynamicTables, request.method == "POST", route.id == nil, ItemBody.isIdentifier(route.table) {
            return TableTarget(name: route.table, softDelete: true, idType: .string, dynamicSchema: true, isNew: true)
        }
        throw .notFound("The table '\(route.table)' does not exist.")
    }

    /// A storage read, whose failure (the database is unreachable; the embedded store's reads
    /// fail on their ticket instead, see `answer(to:)`) is a 503 saying so (issue 17).
    func storageRead<T>(_ read: () throws(StorageError) -> T) throws(ServiceError) -> T {
        do { return try read() } catch { throw .storageUnavailable(error) }
    }

    enum Operation {
        case query, insert, read, update, delete, undelete

        /// The operation permissions name (a query is a read).
        var access: AccessOperation {
            switch self {
            case .query, .read: .read
            case .insert: .insert
            case .update: .update
            case .delete: .delete
            case .undelete: .undelete
            }
        }
    }

    /// Check 8: the method on the route (protocol §5.1).
    static func operation(_ method: String, _ route: Route, _ generation: Generation) throws(ServiceError) -> Operation {
        if route.id == nil {
            switch method {
            case "GET": return .query
            case "POST": return .insert
            case "PATCH":
                if generation == .mobileServices { throw .badRequest("An id is required in the URL to update an item.") }
                return .update
            default:
                let allow = generation == .mobileServices ? "GET, POST, OPTIONS" : "GET, POST, PATCH, OPTIONS"
                throw ServiceError(405, "The method \(method) is not allowed on a table.", allow: allow)
            }
        }
        switch method {
        case "GET": return .read
        case "POST": return .undelete
        case "PATCH": return .update
        case "DELETE": return .delete
        default: throw ServiceError(405, "The method \(method) is not allowed on an item.", allow: "GET, POST, PATCH, DELETE, OPTIONS")
        }
    }

    private func options(_ request: HTTPRequest) -> HTTPResponse {
        var response = HTTPResponse(status: 200)
        response.headers.set(name: "Allow", value: "GET, POST, PATCH, DELETE, OPTIONS")
        if let origin = request.headers["Origin"], configuration.allowedOrigins.contains(origin) {
            response.headers.set(name: "Access-Control-Allow-Methods", value: "GET, POST, PATCH, DELETE, OPTIONS")
            response.headers.set(name: "Access-Control-Allow-Headers", value: request.headers["Access-Control-Request-Headers"] ?? "")
            response.headers.set(name: "Access-Control-Max-Age", value: "600")
        }
        return response
    }

    /// Headers every response carries (protocol §3.4, §3.7), and the table's settings on every
    /// answer about a table (`TableSetup.header`).
    private func finish(_ response: inout HTTPResponse, _ request: HTTPRequest?, _ table: TableTarget? = nil) {
        if let table {
            response.headers.set(name: TableSetup.headerName, value: TableSetup.header(softDelete: table.softDelete, idType: table.idType))
        }
        response.headers.set(name: "Cache-Control", value: "no-cache")
        response.headers.set(name: "x-zumo-server-version", value: configuration.serverVersion)
        if let origin = request?.headers["Origin"], configuration.allowedOrigins.contains(origin) {
            response.headers.set(name: "Access-Control-Allow-Origin", value: origin)
            if request?.method != "OPTIONS" {
                response.headers.set(name: "Access-Control-Expose-Headers", value: "ETag, Link, Location")
            }
        }
    }

    func json(_ status: Int, _ body: JSONValue) -> HTTPResponse {
        json(status, bytes: body.compactBytes())
    }

    /// A response whose body is JSON already written.
    func json(_ status: Int, bytes: [UInt8]) -> HTTPResponse {
        var response = HTTPResponse(status: status, body: bytes)
        response.headers.reserveCapacity(8)  // Content-Type, ETag, Location, the two of finish(), CORS
        response.headers.set(name: "Content-Type", value: "application/json; charset=utf-8")
        return response
    }

    /// The public base URL (protocol §3.1.5).
    private func baseURL(_ request: HTTPRequest) -> String {
        if let url = configuration.publicURL { return url }
        return TextAssembly.join("http://", request.headers["Host"] ?? "127.0.0.1")
    }
}

/// What a request knows of its table before it reads it: what never changes.
///
/// Columns are left out on purpose: an answer renders its rows with the schema of the snapshot
/// they come from (`TableSnapshot`) or of the write that produced them (`TableWrite.schema`),
/// never with one read at another moment, which could lack a column a row has (issue 22).
struct TableTarget {
    /// The configured spelling; for a table an insert is about to create, the request's.
    var name: String
    var softDelete: Bool
    var idType: TableIDType
    /// Whether a write may add a column (`TableOptions.dynamicSchema`).
    var dynamicSchema: Bool
    /// No table has this name yet: an insert creates it (dynamic tables).
    var isNew: Bool
}

/// Everything an operation needs about its request.
struct RequestContext {
    var request: HTTPRequest
    var target: HTTPRequestTarget
    var generation: Generation
    var table: TableTarget
    var query: QueryParameters
    var baseURL: String
    /// Which rows the request sees (owner mode, issue 17).
    var ownership: RowOwnership

    var renderer: RowRenderer {
        RowRenderer(generation: generation, systemProperties: query.systemProperties, select: query.select)
    }
}
