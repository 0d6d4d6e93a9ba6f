import TableProtocol
import TodoModel

/// Reads one query of one table page by page (protocol §10.5): it asks for each page, follows the
/// server's answers (the switch to skip mode, refusals, stops), normalises the rows, and checks
/// that the server pages as asked. It reads nothing from the store and writes nothing: the pull
/// applies and commits each page, then calls `advance`; `todo pull --verify` only compares.
struct PageReader {
    /// What the next request brought.
    enum Next {
        /// Rows to apply, in the order received. `received` counts the rows as sent (rows
        /// without a valid id are left out of `rows`, and reported in `warnings`).
        case page(rows: [Item], received: Int)
        /// An empty page: the query is done.
        case end
        /// The server refused the query (400, or 404 for a missing table); other queries go on.
        case rejected(QueryRefusal)
        /// The pull stops here (network, authentication, 5xx, redirect); what was committed stays.
        case stopped(SyncStop)
        /// The server does not page as asked (`PageProgress`): the pull stops, what was committed stays.
        case notPaging(PagingFault)
    }

    let client: TableClient
    let table: String
    let filter: String?
    let pageSize: Int
    private(set) var cursor: PageCursor
    /// The position as of the last page the caller applied: where a switch to skip mode restarts.
    private(set) var committed: TableConfig.Token?
    /// Set once the reader switched to skip mode in this run (the table config saves it).
    private(set) var switchedToSkip = false
    /// Whether the server keeps this table's deleted rows, when its answers said (`ServerTableSettings`).
    private(set) var serverSoftDelete: Bool?
    /// Notes, said once each, with the page they concern.
    private(set) var notes: [PullNote] = []
    /// Warnings about rows: members dropped, rows without a valid id (each member name once).
    private(set) var warnings: [PullWarning] = []
    private var pendingSwitchNote: PullNote?
    private var warnedNames = Set<String>()
    private var progress: PageProgress

    init(client: TableClient, table: String, filter: String?, pageSize: Int, mode: TableConfig.CursorMode, token: TableConfig.Token?) {
        self.client = client
        self.table = table
        self.filter = filter
        self.pageSize = pageSize
        cursor = PageCursor(mode: mode, token: token)
        committed = token
        progress = PageProgress(pageSize: pageSize)
    }

    /// The token to store once the last page returned is applied.
    var token: TableConfig.Token? { cursor.token }

    /// Takes the notes and warnings gathered so far.
    mutating func takeMessages() -> (notes: [PullNote], warnings: [PullWarning]) {
        defer { notes = []; warnings = [] }
        return (notes, warnings)
    }

    /// Requests pages until one has rows, the query ends, or it cannot go on.
    mutating func next() -> Next {
        while true {
            let query = cursor.query(filter: filter, generation: client.generation, pageSize: pageSize)
            let reply: TableReply
            switch client.read(.page(table: table, query: query), purpose: .pull) {
            case .failure(let failure): return .stopped(.network(failure))
            case .success(let r): reply = r
            }
            if let stop = client.foreignAnswer(reply) { return .stopped(stop) }
            if !reply.isSuccess {
                if cursor.mode == .cursor, [400, 500, 501].contains(reply.status) {
                    // The server cannot filter or order on id: the same page again, in skip mode (§10.5.5).
                    cursor.fallBack(to: committed)
                    switchedToSkip = true
                    pendingSwitchNote = .cannotPageByID
                    continue
                }
                switch reply.status {
                case 401, 403: return .stopped(.auth(reply))
                case 404: return .rejected(.noTable(table))
                case 408, 429, 500...599: return .stopped(.server(reply))
                default: return .rejected(.rejected(status: reply.status, serverMessage: reply.message))
                }
            }
            guard let raw = reply.rows else {
                return .stopped(client.notATableAnswer(reply))
            }
            // Before any row of the page is used: a page is applied whole or not at all.
            if IntegerIDTable.shown(by: reply) { return .rejected(.integerIDs(table: table)) }
            if let soft = reply.tableSettings?.softDelete { serverSoftDelete = soft }
            // A query the server goes on to reject did not switch: say so only once a page is in.
            if let note = pendingSwitchNote {
                notes.append(note)
                pendingSwitchNote = nil
            }
            if raw.isEmpty { return .end }
            var rows: [Item] = []
            rows.reserveCapacity(raw.count)
            for value in raw {
                guard let normalized = WireItem.normalize(value) else {
                    warnings.append(.rowWithoutID(row: String(value.compactText.prefix(80))))
                    continue
                }
                for name in normalized.dropped where warnedNames.insert(name).inserted {
                    warnings.append(.memberIgnored(name: name))
                }
                rows.append(normalized.item)
            }
            if let fault = progress.check(rows, received: raw.count, mode: cursor.mode, bound: cursor.updatedAt) {
                return .notPaging(fault)
            }
            return .page(rows: rows, received: raw.count)
        }
    }

    /// Moves past a page the caller applied (and is about to commit with `token`).
    mutating func advance(past rows: [Item], received: Int) {
        if !cursor.advance(past: rows, received: received) {
            // From the last committed token, not the start of the pull: the rows up to it are in.
            cursor.fallBack(to: committed)
            switchedToSkip = true
            notes.append(.rowsOutOfOrder)
        }
        if let token = cursor.token { committed = token }
        progress.applied(rows, floor: cursor.updatedAt)
    }
}
