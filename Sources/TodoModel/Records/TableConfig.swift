/// A table's sync state (sync.md §2.3): how it pages, and each pull query's filter and token.
public struct TableConfig: Sendable, Equatable {
    public enum CursorMode: String, Sendable { case cursor, skip }

    /// The cursor of one query: the `updatedAt` text of the last row applied, exactly as the
    /// server sent it, and its id (nil in skip mode).
    public struct Token: Sendable, Equatable {
        public var updatedAt: String
        public var id: String?
        public init(updatedAt: String, id: String?) {
            self.updatedAt = updatedAt
            self.id = id
        }
    }

    public struct Query: Sendable, Equatable {
        public var filter: String?
        public var lastPullAt: String?
        public var token: Token?
        public init(filter: String? = nil, lastPullAt: String? = nil, token: Token? = nil) {
            self.filter = filter
            self.lastPullAt = lastPullAt
            self.token = token
        }
    }

    public var name: String
    public var cursorMode: CursorMode
    public var queries: [String: Query]
    /// The server said it removes this table's deleted rows for good (hard delete): pulls never show
    /// deletions there, so rows other replicas delete stay here. Learnt on pull; stored only when true.
    public var hardDelete: Bool

    public init(name: String, cursorMode: CursorMode = .cursor, queries: [String: Query] = [:], hardDelete: Bool = false) {
        self.name = name
        self.cursorMode = cursorMode
        self.queries = queries
        self.hardDelete = hardDelete
    }

    public var json: JSONValue {
        var qs: [String: JSONValue] = [:]
        for (id, q) in queries {
            var o: [String: JSONValue] = ["filter": q.filter.map { .string($0) } ?? .null,
                                          "lastPullAt": q.lastPullAt.map { .string($0) } ?? .null]
            if let t = q.token { o["token"] = ["updatedAt": .string(t.updatedAt), "id": t.id.map { .string($0) } ?? .null] }
            qs[id] = .object(o)
        }
        var o: [String: JSONValue] = ["format": 1, "name": .string(name), "cursorMode": .string(cursorMode.rawValue),
                                      "queries": .object(qs)]
        if hardDelete { o["hardDelete"] = true }
        return .object(o)
    }

    public init(json: JSONValue) throws(RecordError) {
        let r = try RecordReader(json)
        try r.checkFormat()
        var queries: [String: Query] = [:]
        for (id, value) in try r.object("queries") {
            let q: RecordReader
            do { q = try RecordReader(value) } catch { throw RecordError("query \"\(id)\": \(error.message)") }
            var token: Token? = nil
            if let t = try q.optionalObject("token") {
                let tr = RecordReader(object: t)
                token = Token(updatedAt: try tr.string("updatedAt"), id: try tr.optionalString("id"))
            }
            queries[id] = Query(filter: try q.optionalString("filter"), lastPullAt: try q.optionalString("lastPullAt"),
                                token: token)
        }
        self.init(name: try r.string("name"),
                  cursorMode: try r.oneOf("cursorMode", CursorMode.self, expected: "cursor or skip"), queries: queries,
                  hardDelete: try r.bool("hardDelete", default: false))
    }
}
