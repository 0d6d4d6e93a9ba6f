import TodoBasics
import TodoModel
import TodoStore

/// `todo push` (sync.md §4): sends the queue in sequence order, a batch at a time.
///
/// Each batch holds at most one op per item, so an item's ops stay strictly sequential while
/// different items travel concurrently. The store work overlaps the network: while a batch is on
/// the wire, one commit stores the outcomes of the batch before it and the in-flight markers of
/// the batch after it (picked among other items). So every marker is committed before its
/// request leaves (§4.3.1), and every outcome is committed after its answer. Ops that must go
/// again (auto-merge, landed undelete) are committed sealed and go back into the queue.
public final class PushEngine {
    public struct Options: Sendable {
        public var table: String?
        /// Requests in flight at once (§4.1.2); 1 makes the push strictly sequential.
        public var concurrency: Int
        /// Ops per batch: one commit each.
        public var batchSize: Int
        /// Connections the requests in flight are spread over; each pipelines its share.
        public var connections: Int
        /// Ops read from the queue at a time (issue 21): the push holds about two windows.
        public var window: Int
        /// A queue of at most this many ops is read whole, as one window (at least `window`).
        public var wholeQueueUpTo: Int
        /// Lines kept in the report for ops answered ok (nil: all, as JSON lists them); the others
        /// are counted (`PushReport.okNotListed`): a text report names 50 at most.
        public var okLinesKept: Int?

        public init(table: String? = nil, concurrency: Int = Self.defaultConcurrency, batchSize: Int = 400,
                    connections: Int = 4, window: Int = Self.defaultWindow,
                    wholeQueueUpTo: Int = Self.defaultWholeQueue, okLinesKept: Int? = nil) {
            self.table = table
            self.concurrency = max(1, concurrency)
            self.batchSize = max(1, batchSize)
            self.connections = max(1, connections)
            self.window = max(1, window)
            self.wholeQueueUpTo = max(self.window, wholeQueueUpTo)
            self.okLinesKept = okLinesKept
        }

        /// Enough for a whole batch to be on the wire at once: fewer round trips, and the server
        /// makes a connection's pipelined writes durable together.
        public static let defaultConcurrency = 256

        /// What a push's memory scales with, not its CPU (issue 21, a push of 100,000 pending
        /// inserts: windows of 10,000 peaked at 72 MB, of 2,000 at 45 MB, of 1,000 at 42 MB, for
        /// 14.0, 14.2 and 15.5 s of CPU). Five batches, so a batch is still picked among many items.
        public static let defaultWindow = 2_000

        /// The usual big push (10,000) reads each op file once and sorts nothing: a queue read in
        /// windows is walked twice (hand edits, then the send) through two on-disk sorts, which
        /// cost a push of 10,000 about 15% more CPU (1.24 s against 1.08 s, 3 runs each). Held
        /// whole, 10,000 peaked at 48 MB.
        public static let defaultWholeQueue = 10_000
    }

    let store: Store
    let sender: OperationSender
    let clock: Clock
    let progress: (@Sendable (SyncProgress) -> Void)?

    public init(store: Store, client: TableClient, clock: Clock, progress: (@Sendable (SyncProgress) -> Void)? = nil) {
        self.store = store
        self.sender = OperationSender(client: client)
        self.clock = clock
        self.progress = progress
    }

    /// Runs the push. Store failures throw (exit 1); everything the server said is in the report.
    public func run(_ options: Options) throws(StoreError) -> PushReport {
        let started = clock.nowMilliseconds()
        // The index of pending operations, if it vouched for the queue, is rebuilt from what is
        // left once the commits are done (`Store.rebuildPendingIndex`), so log and diff walk it.
        let indexVouched = store.pendingIndexVouches
        var run = try PushRun(store: store, table: options.table, window: options.window, wholeQueueUpTo: options.wholeQueueUpTo)
        run.report.okLinesKept = options.okLinesKept
        // A push replaces each pushed item's file with the server's copy and sends each op's copy:
        // an edit made by hand to either would be lost, or sent though todo never recorded it, so
        // the push sends nothing while one exists (issue 15 item 8).
        let edits = try run.handEdits()
        guard edits.isEmpty else {
            var report = run.report
            report.handEdits = edits
            report.remaining = run.total
            return report
        }
        let series = CommitSeries(store: store)
        var current = try run.nextBatch(size: options.batchSize, busy: [])
        var staged = try store.transaction()
        run.stageMarkers(&current, at: clock.nowText(), into: &staged)
        try series.commit(staged)
        staged = store.transaction(following: staged)

        while !current.isEmpty {
            var next = try run.nextBatch(size: options.batchSize, busy: current.items)
            run.stageMarkers(&next, at: clock.nowText(), into: &staged)
            staged = try sendAndStage(current, &run, committing: staged, in: series, options)
            if run.report.stop != nil {
                // `next` has committed markers but sent nothing: clear them (§3.5.4).
                try run.apply(next, next.ops.map { _ in .notSent }, at: clock.nowText(), into: &staged)
                break
            }
            if next.isEmpty {
                // Items just answered may have ops left, and resends wait in the queue.
                next = try run.nextBatch(size: options.batchSize, busy: [])
                run.stageMarkers(&next, at: clock.nowText(), into: &staged)
                if !next.isEmpty {
                    try series.commit(staged)
                    staged = store.transaction(following: staged)
                }
            }
            current = next
            progress?(SyncProgress(phase: "push", done: run.done, total: run.total,
                                   elapsed: Double(clock.nowMilliseconds() - started) / 1000))
        }
        try series.commit(staged)
        try series.finish()
        if indexVouched { store.rebuildPendingIndex() }
        var report = run.report
        report.remaining = try store.operationCount()
        report.openConflicts = try store.conflictNames().count
        return report
    }

    /// Sends `batch` (its markers are committed) while another thread commits `staged`, and
    /// stages the answers as soon as they are in, while that commit may still be writing. That is
    /// safe: the commit touches other items (a batch is picked among items the batches on either
    /// side of it do not hold), and the new transaction takes its state from `staged` rather than
    /// from `state.json`, which the commit rewrites. Returns the transaction holding the outcomes.
    private func sendAndStage(_ batch: PushRun.Batch, _ run: inout PushRun, committing staged: StoreTransaction,
                              in series: CommitSeries, _ options: Options) throws(StoreError) -> StoreTransaction {
        let commit = BackgroundCommit(series: series, transaction: staged)
        let contexts = run.contexts(batch)
        let sender = BatchSender(sender: sender, ops: contexts.count, bound: options.concurrency, connections: options.connections)
        var following = store.transaction(following: staged)
        let staging: Result<Void, StoreError> = WorkerPool.alongside({ commit.run() }) {
            let outcomes = sender.send(contexts)
            do throws(StoreError) {
                try run.apply(batch, outcomes, at: clock.nowText(), into: &following)
                following.encodeStaged()
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        if let failure = commit.failure { throw failure }
        try staging.get()
        return following
    }
}

/// A commit run on another thread; the engine reads `failure` only after joining it.
private final class BackgroundCommit: @unchecked Sendable {
    let series: CommitSeries
    let transaction: StoreTransaction
    var failure: StoreError?

    init(series: CommitSeries, transaction: StoreTransaction) {
        self.series = series
        self.transaction = transaction
    }

    func run() {
        do { try series.commit(transaction) } catch { failure = error }
    }
}

/// An item across the store: table and id, compared as the server compares ids.
struct ItemKey: Hashable, Sendable {
    var table: String
    var id: String

    init(_ table: String, _ id: String) {
        self.table = table
        self.id = ItemID.key(id)
    }

    init(_ op: PendingOperation) { self.init(op.table, op.id) }
}
