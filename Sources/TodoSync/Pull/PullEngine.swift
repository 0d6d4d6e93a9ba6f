import TableProtocol
import TodoBasics
import TodoModel
import TodoStore

/// `todo pull` (sync.md §5): pages through each query from its token and commits page by page,
/// so an interrupted first pull of a large table keeps its progress.
public final class PullEngine {
    public struct Options: Sendable {
        public var table: String?
        public var queryID: String?
        public var filter: String?
        public var full: Bool
        /// Also pull every table the server lists that the replica does not track yet
        /// (`ServerTables`, issue 19 item 6).
        public var allTables: Bool

        public init(table: String? = nil, queryID: String? = nil, filter: String? = nil, full: Bool = false, allTables: Bool = false) {
            self.table = table
            self.queryID = queryID
            self.filter = filter
            self.full = full
            self.allTables = allTables
        }
    }

    let store: Store
    let client: TableClient
    let clock: Clock
    let pageSize: Int
    let progress: (@Sendable (SyncProgress) -> Void)?
    var index: LocalIndex
    /// Page commits: each page's syncfs overlaps the request for the next page.
    let series: CommitSeries
    /// Items already warned about in this run for ids that differ only in case (sync.md §10.2).
    var warnedSpellings = Set<String>()
    var currentOptions = Options()

    public init(store: Store, client: TableClient, clock: Clock, pageSize: Int,
                progress: (@Sendable (SyncProgress) -> Void)? = nil) throws(StoreError) {
        self.store = store
        self.client = client
        self.clock = clock
        self.pageSize = pageSize
        self.progress = progress
        self.index = try LocalIndex(store: store)
        self.series = CommitSeries(store: store)
    }

    public func run(_ options: Options) throws(StoreError) -> PullReport {
        var report = PullReport()
        currentOptions = options
        let started = clock.nowMilliseconds()
        var serverTables: [String] = []
        if options.allTables {
            switch ServerTables.list(client) {
            case .names(let names):
                serverTables = names
                var tx = try store.transaction()
                tx.putServerTables(ServerTableList(remote: try store.config().remote ?? "", listedAt: clock.nowText(), tables: names))
                try series.commit(tx)
            case .cannotList(let why):
                report.warnings.append(why)
            case .stopped(let stop):
                report.stop = stop
            }
        }
        let jobs = report.stop != nil ? [] : try self.jobs(options, serverTables: serverTables, report: &report)
        for job in jobs {
            var result = PullReport.QueryResult(table: job.table, queryID: job.queryID)
            result.notes = job.notes
            let stop = try pull(job, into: &result, report: &report, started: started)
            report.queries.append(result)
            if let stop {
                report.stop = stop
                break
            }
        }
        try series.finish()
        report.openConflicts = try store.conflictNames().count
        return report
    }

    // MARK: Queries

    struct Job {
        var table: String
        var queryID: String?
        var filter: String?
        var notes: [String] = []
        var resetToken = false
    }

    /// The queries this pull runs (§5.1.1).
    func jobs(_ options: Options, serverTables: [String] = [], report: inout PullReport) throws(StoreError) -> [Job] {
        let config = try store.config()
        if options.queryID != nil || options.filter != nil {
            let requested = options.table ?? config.defaultTable
            let table = try store.resolveTable(requested) ?? requested
            guard let queryID = options.queryID else { return [Job(table: table, queryID: nil, filter: options.filter)] }
            let stored = try store.tableConfig(table)?.queries[queryID]
            var job = Job(table: table, queryID: queryID, filter: options.filter ?? stored?.filter)
            if let stored, options.filter != nil, stored.filter != options.filter {
                job.resetToken = true
                job.notes.append("the filter of query '\(queryID)' changed; pulling it from the beginning")
            }
            return [job]
        }
        var tables = try store.tables()
        if let only = options.table {
            tables = [try store.resolveTable(only) ?? only]
        } else {
            for name in [config.defaultTable] + serverTables where !tables.contains(where: { TableName.same($0, name) }) {
                tables.append(name)
            }
        }
        var jobs: [Job] = []
        for table in tables.sorted() {
            let queries = try store.tableConfig(table)?.queries ?? [:]
            if queries.isEmpty {
                jobs.append(Job(table: table, queryID: "default", filter: nil))
            } else {
                for (id, query) in queries.sorted(by: { $0.key < $1.key }) {
                    jobs.append(Job(table: table, queryID: id, filter: query.filter))
                }
            }
        }
        return jobs
    }

    // MARK: Page loop (§5.3)

    func pull(_ job: Job, into result: inout PullReport.QueryResult, report: inout PullReport, started: Int64) throws(StoreError) -> SyncStop? {
        var tableConfig = try store.tableConfig(job.table) ?? TableConfig(name: job.table)
        let stored = job.queryID.flatMap { tableConfig.queries[$0] }
        let full = currentOptions.full
        let useToken = job.queryID != nil && !full && !job.resetToken
        if full { tableConfig.cursorMode = .cursor }
        var reader = PageReader(client: client, table: job.table, filter: job.filter, pageSize: pageSize,
                                mode: tableConfig.cursorMode, token: useToken ? stored?.token : nil)
        if !useToken || stored?.token == nil { try index.expectMostlyNewRows(in: job.table, store: store) }
        func takeMessages() {
            let (notes, warnings) = reader.takeMessages()
            result.notes += notes
            report.warnings += warnings
        }
        var learntDeletes = false
        while true {
            let next = reader.next()
            takeMessages()
            if reader.switchedToSkip { tableConfig.cursorMode = .skip }
            if let soft = reader.serverSoftDelete, soft == tableConfig.hardDelete {
                tableConfig.hardDelete = !soft
                learntDeletes = true
                result.notes.append(Self.deletesNote(job.table, hard: !soft))
            }
            let rows: [Item], received: Int
            switch next {
            case .stopped(let stop): return stop
            case .notPaging(let reason): return Self.notPaging(reason, job, result)
            case .rejected(let why):
                result.rejected = why
                return nil
            case .end:
                result.pages += 1
                if job.queryID == nil && learntDeletes {
                    var tx = try store.transaction()
                    tx.putTableConfig(tableConfig)
                    try series.commit(tx)
                }
                if let queryID = job.queryID {
                    var tx = try store.transaction()
                    var q = tableConfig.queries[queryID] ?? TableConfig.Query(filter: job.filter)
                    q.filter = job.filter
                    q.lastPullAt = clock.nowText()
                    if job.resetToken && result.received == 0 { q.token = nil }
                    tableConfig.queries[queryID] = q
                    tx.putTableConfig(tableConfig)
                    try series.commit(tx)
                    result.token = q.token
                }
                return nil
            case .page(let r, let n):
                rows = r
                received = n
            }
            result.pages += 1
            var tx = try store.transaction()
            let now = clock.nowText()
            do {
                for row in rows { try apply(row, table: job.table, into: &tx, result: &result, report: &report, now: now) }
            } catch {
                index.discard()
                throw error
            }
            result.received += received
            reader.advance(past: rows, received: received)
            takeMessages()
            if reader.switchedToSkip { tableConfig.cursorMode = .skip }
            if let queryID = job.queryID {
                var q = tableConfig.queries[queryID] ?? TableConfig.Query(filter: job.filter)
                q.filter = job.filter
                if let token = reader.token {
                    q.token = token
                } else if job.resetToken {
                    q.token = nil  // the old token belongs to the old filter
                }
                tableConfig.queries[queryID] = q
                result.token = q.token
            }
            tx.putTableConfig(tableConfig)
            try series.commit(tx)
            index.commit()
            progress?(SyncProgress(phase: "pull \(job.table)", done: result.received, total: nil,
                                   elapsed: Double(clock.nowMilliseconds() - started) / 1000))
        }
    }

    /// Said once, when a pull learns that the server deletes the table's rows for good (or no longer
    /// does): what that means for this replica, and what to do about it (sync.md §5.7).
    static func deletesNote(_ table: String, hard: Bool) -> String {
        hard ? "the server deletes rows of '\(table)' for good (hard delete): rows that other replicas delete there "
            + "stay in this replica, since pulls never show them; 'todo purge --table \(table)' then 'todo pull' drops them"
            : "the server now keeps the deleted rows of '\(table)' (soft delete): pulls show deletions again"
    }

    /// The stop for a server whose pages stop making progress: exit 4, and the pages applied stay.
    static func notPaging(_ reason: String, _ job: Job, _ result: PullReport.QueryResult) -> SyncStop {
        let query = job.queryID.map { "query '\($0)' of \(job.table)" } ?? "the pull of \(job.table)"
        return SyncStop(.server, message: "the server does not page as asked: \(reason). "
                        + "\(query) stopped after \(result.received) rows, which are kept; check the remote URL, or a proxy in between")
    }

    /// Warns once per item and pull when a row's id differs only in case from an item that came
    /// from the server (sync.md §10.2): the server holds, or held, two rows the replica keeps as
    /// one. Asked of the item itself, not of a map of every id pulled, so a pull's memory does not
    /// grow with the table. An item created here and never pulled is not warned about: the row
    /// is its own insert, spelt otherwise (the SDK's `testPullKeepsPendingChangesWithDifferentCasedId`).
    func noteSpelling(_ row: Item, local: Item?, table: String, report: inout PullReport) {
        guard let local, local.id != row.id, local.system.version != nil || local.system.updatedAt != nil,
              warnedSpellings.insert(LocalIndex.slot(table, row.id)).inserted else { return }
        report.warnings.append("the server has rows '\(local.id)' and '\(row.id)' in \(table), ids that differ only in case; "
                               + "the replica keeps one item, the last one pulled")
    }

    /// Rows the engine keeps after their page committed (issue 21 item 5: none, whatever the
    /// table's size).
    var rememberedRows: Int { index.rememberedRows }

    /// §5.5 for one row, staged into the page's transaction.
    func apply(_ row: Item, table: String, into tx: inout StoreTransaction, result: inout PullReport.QueryResult,
               report: inout PullReport, now: String) throws(StoreError) {
        let local = try index.local(table: table, id: row.id, store: store)
        noteSpelling(row, local: local.item, table: table, report: &report)
        let plan = PulledRow.apply(row, to: local, now: now)
        switch plan.outcome {
        case .created: result.created += 1
        case .updated: result.updated += 1
        case .removed: result.removed += 1
        case .merged: result.merged += 1
        case .absorbed: result.absorbed += 1
        case .conflict: result.conflicts += 1
        case .skippedSealed: result.skippedSealed += 1
        case .conflictClosed:
            // §7.4: a closing refresh has the effect of case 9 or 10, and is counted as one.
            if plan.receipts.contains(where: { $0.decision == .merge }) { result.merged += 1 }
            if plan.receipts.contains(where: { $0.decision == .absorb }) { result.absorbed += 1 }
        case .conflictRefreshed, .bothDeleted, .unchanged, .skippedPending: break
        }
        for op in plan.removals { tx.removeOperation(op) }
        for op in plan.writes { tx.putOperation(op) }
        if let item = plan.item {
            if let item { tx.putItem(item, table: table) } else if let existing = local.item { tx.removeItem(table: table, id: existing.id) }
        }
        if let conflict = plan.conflict {
            if let conflict { tx.putConflict(conflict) } else { tx.removeConflict(table: table, id: local.conflict?.id ?? row.id) }
        }
        for receipt in plan.receipts { tx.addReceipt(receipt) }
        index.stage(table, row.id, plan: plan, local: local)
    }
}
