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
}
