import TodoModel

/// What a pull did (sync.md §5.9.1), per table and query.
public struct PullReport: Sendable {
    public struct QueryResult: Sendable, Equatable {
        public var table: String
        /// nil for a one-off `--filter` pull.
        public var queryID: String?
        public var received = 0
        public var created = 0
        public var updated = 0
        public var removed = 0
        public var merged = 0
        public var absorbed = 0
        public var conflicts = 0
        public var skippedSealed = 0
        public var pages = 0
        public var token: TableConfig.Token?
        /// Set when the server rejected the query (400) or lacks the table (404).
        public var rejected: QueryRefusal?
        public var notes: [PullNote] = []

        public init(table: String, queryID: String?) {
            self.table = table
            self.queryID = queryID
        }
    }

    public var queries: [QueryResult] = []
    public var warnings: [PullWarning] = []
    public var stop: SyncStop?
    public var openConflicts = 0

    public init() {}

    public var received: Int { queries.reduce(0) { $0 + $1.received } }
}
