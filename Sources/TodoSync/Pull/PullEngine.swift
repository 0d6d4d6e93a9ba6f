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
        store.keepPendingIndexInCommits()
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
            case .cannotList(let unlisted):
                report.warnings.append(.cannotListTables(unlisted, remote: client.endpoint))
            case .stopped(let stop):
                report.stop = stop
            }
        }
        let jobs = report.stop != nil ? [] : try self.jobs(options, serverTables: serverTables, report: &report)
        for job in jobs {
            var result = PullReport.QueryResult(table: job.table, queryID: job.id)
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

    /// The queries this pull runs (§5.1.1).
    func jobs(_ options: Options, serverTables: [String] = [], report: inout PullReport) throws(StoreError) -> [PullQuery] {
        let config = try store.config()
        if options.queryID != nil || options.filter != nil {
            let requested = options.table ?? config.defaultTable
            let table = try store.resolveTable(requested) ?? requested
            guard let queryID = options.queryID else { return [PullQuery(table: table, id: nil, filter: options.filter)] }
            let stored = try store.tableConfig(table)?.queries[queryID]
            var job = PullQuery(table: table, id: queryID, filter: options.filter ?? stored?.filter)
            if let stored, options.filter != nil, stored.filter != options.filter {
                job.resetToken = true
                job.notes.append(.filterChanged(queryID: queryID))
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
        var jobs: [PullQuery] = []
        for table in tables.sorted() {
            let queries = try store.tableConfig(table)?.queries ?? [:]
            if queries.isEmpty {
                jobs.append(PullQuery(table: table, id: "default", filter: nil))
            } else {
                for (id, query) in queries.sorted(by: { $0.key < $1.key }) {
                    jobs.append(PullQuery(table: table, id: id, filter: query.filter))
                }
            }
        }
        return jobs
    }

    // MARK: Page loop (§5.3)

    /// Runs one query: asks the planner at each answer, loads each page's local state, applies the
    /// page's decisions and commits them with the token. Nothing of a page is kept once it commits.
    func pull(_ query: PullQuery, into result: inout PullReport.QueryResult, report: inout PullReport, started: Int64) throws(StoreError) -> SyncStop? {
        var config = try store.tableConfig(query.table) ?? TableConfig(name: query.table)
        let start = PullPlanner.start(query, config: config, full: currentOptions.full)
        config.cursorMode = start.mode
        var reader = PageReader(client: client, table: query.table, filter: query.filter, pageSize: pageSize,
                                mode: start.mode, token: start.token)
        if start.token == nil { try index.expectMostlyNewRows(in: query.table, store: store) }
        var learntDeletes = false
        func learn() {
            let (notes, warnings) = reader.takeMessages()
            result.notes += notes
            report.warnings += warnings
            if let note = PullPlanner.learn(&config, table: query.table, switchedToSkip: reader.switchedToSkip,
                                            serverSoftDelete: reader.serverSoftDelete) {
                learntDeletes = true
                result.notes.append(note)
            }
        }
        while true {
            let next = reader.next()
            learn()
            switch PullPlanner.step(next, query: query, received: result.received) {
            case .stop(let stop): return stop
            case .skipQuery(let refusal):
                result.rejected = refusal
                return nil
            case .finish:
                result.pages += 1
                if let final = PullPlanner.atEnd(config, query: query, received: result.received,
                                                 learntDeletes: learntDeletes, now: clock.nowText()) {
                    var tx = try store.transaction()
                    tx.putTableConfig(final)
                    try series.commit(tx)
                    if let id = query.id { result.token = final.queries[id]?.token }
                }
                return nil
            case .apply(let rows, let received):
                result.pages += 1
                let locals = try index.load(rows, table: query.table, store: store)
                let page = PullPlanner.page(rows, table: query.table, locals: locals, now: clock.nowText())
                result.received += received
                reader.advance(past: rows, received: received)
                learn()
                PullPlanner.afterPage(&config, query: query, token: reader.token)
                if let id = query.id { result.token = config.queries[id]?.token }
                var tx = try store.transaction()
                PullApplier.stage(page, into: &tx, result: &result)
                for row in page.rows { if let other = row.otherSpelling { warnSpelling(other, row.id, table: query.table, report: &report) } }
                tx.putTableConfig(config)
                try series.commit(tx)
                index.commit(page.after)
                progress?(SyncProgress(phase: "pull \(query.table)", done: result.received, total: nil,
                                       elapsed: Double(clock.nowMilliseconds() - started) / 1000))
            }
        }
    }

    /// Warns once per item and pull when a row's id differs only in case from an item that came
    /// from the server (sync.md §10.2): the server holds, or held, two rows the replica keeps as
    /// one. Asked of the item itself, not of a map of every id pulled, so a pull's memory does not
    /// grow with the table.
    func warnSpelling(_ local: String, _ row: String, table: String, report: inout PullReport) {
        guard warnedSpellings.insert(LocalIndex.slot(table, row)).inserted else { return }
        report.warnings.append(.idsDifferInCase(table: table, first: local, second: row))
    }

    /// Rows the engine keeps after their page committed (issue 21 item 5: none, whatever the
    /// table's size).
    var rememberedRows: Int { index.rememberedRows }
}
