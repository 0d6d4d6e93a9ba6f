import TableProtocol
import TodoModel

/// One request of the table protocol (protocol §10.3, §10.5), before it is spelled for a
/// generation. Engines say what they want; `TableClient` knows how it is written.
public enum TableCall: Sendable, Equatable {
    case insert(table: String, body: JSONValue)
    case update(table: String, id: String, body: JSONValue, version: String?)
    case delete(table: String, id: String, version: String?)
    case undelete(table: String, id: String, version: String?)
    /// The server copy, deleted or not, by the one-row query of protocol §10.3:
    /// `GET /tables/T?$filter=id eq '<id>'&__includeDeleted=true`. Not the read-by-id route, which
    /// some servers (Node) answer 404 for a soft-deleted row.
    case fetch(table: String, id: String)
    /// The same with `tolower(id) eq '<id in lower case>'`: ids are case-insensitive (protocol
    /// §4.2.4) but `eq` on strings is not, so a row spelled in another case is found only so.
    case fetchIgnoringCase(table: String, id: String)
    /// `GET /tables/T?$top=1`: does the table exist (sync.md §4.8.4).
    case probeTable(table: String)
    case page(table: String, query: PageQuery)
    /// `GET /tables`: the tables the server has (todo-server's own route, not the protocol's:
    /// foreign servers answer 404). Its `table` is "".
    case listTables

    public var isWrite: Bool {
        switch self {
        case .insert, .update, .delete, .undelete: true
        case .fetch, .fetchIgnoringCase, .probeTable, .page, .listTables: false
        }
    }

    public var table: String {
        switch self {
        case .insert(let t, _), .update(let t, _, _, _), .delete(let t, _, _), .undelete(let t, _, _),
             .fetch(let t, _), .fetchIgnoringCase(let t, _), .probeTable(let t), .page(let t, _): t
        case .listTables: ""
        }
    }
}

/// The options of one pull page. `filter` is the whole `$filter` text (query and cursor combined).
public struct PageQuery: Sendable, Equatable {
    public var filter: String?
    public var orderBy: String
    public var top: Int
    public var skip: Int?

    public init(filter: String?, orderBy: String, top: Int, skip: Int? = nil) {
        self.filter = filter
        self.orderBy = orderBy
        self.top = top
        self.skip = skip
    }
}

/// What came back for one call: the status and the parts the engines read.
public struct TableReply: Sendable {
    public var status: Int
    public var headers: HTTPHeaders { didSet { parsedHeaders = ReplyHeaders(headers) } }
    public var body: JSONValue?
    /// What the headers say, read once (`ReplyHeaders`).
    public private(set) var parsedHeaders: ReplyHeaders

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: JSONValue? = nil, counter: ReplyCounter? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        parsedHeaders = ReplyHeaders(headers, counter: counter)
    }

    public var isSuccess: Bool { (200...299).contains(status) }

    /// The body as a server copy, when it is an object with a usable `id`. Its version comes from
    /// the body, else, on a 2xx answer only, from a strong `ETag` (protocol §10.4): an error or
    /// conflict answer's `ETag` may describe anything, even the client's own body echoed back.
    public var item: Item? {
        let etag = isSuccess ? WireItem.version(fromETag: parsedHeaders.etag) : nil
        return body.flatMap { WireItem.normalize($0, etagVersion: etag)?.item }
    }

    /// The rows of a list body: a bare array, `{"results": [...]}`, or `{"items": [...]}` (§10.4).
    public var rows: [JSONValue]? {
        switch body {
        case .array(let rows)?: rows
        case .object(let o)?: o["results"]?.arrayValue ?? o["items"]?.arrayValue
        default: nil
        }
    }

    /// The server's error text, for people only (§10.4): the first of `error`, `message`,
    /// `detail`, `title`, or a short plain-text body (not HTML).
    public var message: String? {
        if case .object(let o)? = body {
            for key in ["error", "message", "detail", "title"] {
                if let text = o[key]?.stringValue { return text }
                if let nested = o[key]?.objectValue, let text = nested["message"]?.stringValue { return text }
            }
            return nil
        }
        // Never a web page: its markup means nothing on a terminal.
        if case .string(let text)? = body, webPageType == nil { return text }
        return nil
    }

    public var location: String? { headers["Location"] }

    /// `Retry-After` in seconds, when it is a number.
    public var retryAfter: Double? { headers["Retry-After"].flatMap { Double($0.trimmingSpaces) } }
}
