import TableProtocol
import TodoModel

/// One query a pull runs (sync.md §5.1.1).
struct PullQuery: Equatable, Sendable {
    var table: String
    /// nil for a one-off `--filter` pull: no token is read or saved.
    var id: String?
    var filter: String?
    var notes: [PullNote] = []
    /// The stored filter changed: the query starts from the beginning and its old token goes.
    var resetToken = false
}

/// The decisions of a pull (sync.md §5), apart from its effects: where a query starts, what each
/// answer of the server means (apply a page, finish, skip the query, stop), what a page does to
/// each item (`page(_:table:locals:now:)`), and how the table config and token move. Pure: it
/// reads no store and sends no request, so every rule is a unit test of values; `PullEngine`
/// loads the local state, asks, and `PullApplier` turns the answers into one transaction a page.
enum PullPlanner {
    /// Where a query's first page starts.
    struct Start: Equatable, Sendable {
        /// The mode the table config holds from now on (`--full` tests the server again).
        var mode: TableConfig.CursorMode
        /// The token the first page starts after; nil: from the beginning.
        var token: TableConfig.Token?
    }

    /// §5.3 step 1 with §5.1.1 and §5.7: from the stored token, or from the beginning when there
    /// is none, the query is one-off, its filter changed, or `--full` is given (in cursor mode).
    static func start(_ query: PullQuery, config: TableConfig, full: Bool) -> Start {
        let useToken = query.id != nil && !full && !query.resetToken
        let token = useToken ? query.id.flatMap { config.queries[$0]?.token } : nil
        return Start(mode: full ? .cursor : config.cursorMode, token: token)
    }

    /// What the server's answers taught about the table, said once: the switch to skip mode
    /// (protocol §10.5.5), and whether it keeps deleted rows (§5.7). Returns the note to show when
    /// the delete mode changed.
    static func learn(_ config: inout TableConfig, table: String, switchedToSkip: Bool, serverSoftDelete: Bool?) -> PullNote? {
        if switchedToSkip { config.cursorMode = .skip }
        guard let soft = serverSoftDelete, soft == config.hardDelete else { return nil }
        config.hardDelete = !soft
        return soft ? .deletesKept(table: table) : .deletesForGood(table: table)
    }

    /// What to do with one answer of the page reader.
    enum Step: Equatable {
        /// Plan, apply and commit these rows (§5.3 steps 3–5).
        case apply(rows: [Item], received: Int)
        /// An empty page: the query is done (§5.3 step 2).
        case finish
        /// The server refused this query; the others still run, exit 1 at the end (§5.9.2).
        case skipQuery(QueryRefusal)
        /// The pull stops; committed pages stay (§5.9.2).
        case stop(SyncStop)
    }

    /// `received`: the rows this query applied so far, which a stop names.
    static func step(_ next: PageReader.Next, query: PullQuery, received: Int) -> Step {
        switch next {
        case .page(let rows, let n): .apply(rows: rows, received: n)
        case .end: .finish
        case .rejected(let refusal): .skipQuery(refusal)
        case .stopped(let stop): .stop(stop)
        case .notPaging(let fault): .stop(SyncStop(.notPaging(fault, read: .pull(table: query.table, queryID: query.id), rows: received)))
        }
    }

    /// §5.3 step 4 and §5.4: the query's token after a page, committed with it. The reader's
    /// cursor gives the new token; with none (rows without `updatedAt`) a query whose filter
    /// changed drops its old token, which belongs to the old filter, and another keeps its own.
    static func afterPage(_ config: inout TableConfig, query: PullQuery, token: TableConfig.Token?) {
        guard let id = query.id else { return }
        var stored = config.queries[id] ?? TableConfig.Query(filter: query.filter)
        stored.filter = query.filter
        if let token {
            stored.token = token
        } else if query.resetToken {
            stored.token = nil
        }
        config.queries[id] = stored
    }

    /// §5.3 step 2: the table config to commit when the query ends, or nil when nothing changed.
    /// A stored query records when it was pulled, and a changed filter with no row at all drops
    /// the old token; a one-off query saves only what it learnt about deletes.
    static func atEnd(_ config: TableConfig, query: PullQuery, received: Int, learntDeletes: Bool, now: String) -> TableConfig? {
        guard let id = query.id else { return learntDeletes ? config : nil }
        var config = config
        var stored = config.queries[id] ?? TableConfig.Query(filter: query.filter)
        stored.filter = query.filter
        stored.lastPullAt = now
        if query.resetToken && received == 0 { stored.token = nil }
        config.queries[id] = stored
        return config
    }
}
