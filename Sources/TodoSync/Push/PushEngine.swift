import Synchronization
import TodoBasics
import TodoModel
import TodoStore

/// `todo push` (sync.md §4): sends the queue in sequence order, a batch at a time.
///
/// Each batch holds at most one op per item, so an item's ops stay strictly sequential while
/// different items travel concurrently. Per batch there are two commits: the in-flight markers
/// before any request leaves, and every outcome after the answers are in. Ops that must go
/// again (auto-merge, landed undelete) are committed sealed and lead the next batch.
public final class PushEngine {
    public struct Options: Sendable {
        public var table: String?
        /// Requests in flight at once (§4.1.2); 1 makes the push strictly sequential.
        public var concurrency: Int
        /// Ops per batch: one marker commit and one outcome commit each.
        public var batchSize: Int

        public init(table: String? = nil, concurrency: Int = 8, batchSize: Int = 200) {
            self.table = table
            self.concurrency = max(1, concurrency)
            self.batchSize = max(1, batchSize)
        }
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
        var report = PushReport()
        let started = clock.nowMilliseconds()
        var queue = try store.operations(table: options.table)
        let total = queue.count
        var conflicted = Set(try store.conflicts().map { ItemKey($0.table, $0.id) })
        var remainingPerItem: [ItemKey: Int] = [:]
        for op in queue { remainingPerItem[ItemKey(op), default: 0] += 1 }
        var merges: [Int: Int] = [:]
        var insertedAgain = Set<Int>()
        // Ops this push committed sealed for a resend: their last request was answered, so they
        // need no replay check, and a stop before the resend clears their marker.
        var resent = Set<Int>()
        // `attemptedAt` as each op came in, put back when a marker is cleared because no request
        // of this push can have applied: such an op ends byte for byte as it was.
        var attemptedAtBefore: [Int: String?] = [:]
        for op in queue { attemptedAtBefore[op.sequence] = op.attemptedAt }
        var done = 0

        while report.stop == nil {
            // Pick the batch: the first op of each item not held, in queue order.
            var batch: [PendingOperation] = []
            var busy = Set<ItemKey>()
            var kept: [PendingOperation] = []
            for op in queue {
                let key = ItemKey(op)
                if conflicted.contains(key) {
                    report.held += 1
                    report.lines.append(.init(kind: op.kind, table: op.table, id: op.id, result: .held))
                    continue
                }
                if busy.contains(key) || batch.count >= options.batchSize {
                    kept.append(op)
                    continue
                }
                busy.insert(key)
                batch.append(op)
            }
            queue = kept
            if batch.isEmpty { break }

            // Commit the in-flight markers before any request leaves (§4.3.1). An op still sealed
            // from an earlier run gets the replay check first (§4.4.1).
            let sealedAtStart = batch.map { $0.attempted && !resent.contains($0.sequence) }
            var markers = try store.transaction()
            let now = clock.nowText()
            for i in batch.indices where !batch[i].attempted {
                batch[i].attempted = true
                batch[i].attemptedAt = now
                markers.putOperation(batch[i])
            }
            try store.commit(markers)

            let stopFlag = Atomic<Bool>(false)
            let contexts = batch.indices.map { i in
                OperationSender.Context(op: batch[i], sealedAtStart: sealedAtStart[i],
                                        onlyOp: remainingPerItem[ItemKey(batch[i]), default: 1] == 1,
                                        merges: merges[batch[i].sequence, default: 0],
                                        insertedAgain: insertedAgain.contains(batch[i].sequence))
            }
            let sender = self.sender
            let outcomes = WorkerPool.map(contexts, width: options.concurrency) { context -> SendOutcome in
                if stopFlag.load(ordering: .relaxed) { return .notSent }
                let outcome = sender.run(context)
                if case .stopped = outcome { stopFlag.store(true, ordering: .relaxed) }
                return outcome
            }

            // Commit every outcome of the batch at once.
            var tx = try store.transaction()
            let at = clock.nowText()
            var again: [PendingOperation] = []
            for ((op, outcome), leftover) in zip(zip(batch, outcomes), sealedAtStart) {
                let key = ItemKey(op)
                resent.remove(op.sequence)
                // The op with its marker cleared, as it was before this push sealed it.
                func cleared() -> PendingOperation {
                    var o = op
                    o.attempted = false
                    if let before = attemptedAtBefore[op.sequence] { o.attemptedAt = before }
                    return o
                }
                switch outcome {
                case .succeeded(let server, let receipt):
                    report.sent[op.kind, default: 0] += 1
                    report.succeeded += 1
                    done += 1
                    tx.removeOperation(op)
                    remainingPerItem[key, default: 1] -= 1
                    // Only an item with ops left needs the queue searched (a scan per op would make
                    // a big push quadratic).
                    if remainingPerItem[key, default: 0] > 0, let next = queue.firstIndex(where: { ItemKey($0) == key }) {
                        if let server {
                            queue[next].base = server
                            tx.putOperation(queue[next])
                            if let local = try store.item(table: op.table, id: op.id) {
                                tx.putItem(Item(id: local.id, fields: local.fields, system: PulledRow.itemCopy(server).system), table: op.table)
                            }
                        }
                    } else if let server, op.kind != .delete {
                        tx.putItem(PulledRow.itemCopy(server), table: op.table)
                    }
                    var result = PushReport.Line.Result.ok
                    if let receipt {
                        if receipt.decision == .replay { report.replayed += 1; result = .replayed(receipt.rule) }
                        if receipt.decision == .absorb { result = .absorbed }
                        tx.addReceipt(Receipt(at: at, decision: receipt.decision, rule: receipt.rule, table: op.table, id: op.id,
                                              operation: op.reference, kept: op.kind == .delete ? nil : server?.userCopy, lost: [:]))
                    }
                    report.lines.append(.init(kind: op.kind, table: op.table, id: op.id, result: result))
                case .resend(var next, let receipt, let merged):
                    if merged {
                        merges[op.sequence, default: 0] += 1
                        report.merged += 1
                        if let local = try store.item(table: op.table, id: op.id) {
                            tx.putItem(Item(id: local.id, fields: next.item.fields, system: local.system), table: op.table)
                        }
                    }
                    if next.kind == .insert && op.kind == .insert { insertedAgain.insert(op.sequence) }
                    if let receipt { var r = receipt; r.at = at; tx.addReceipt(r) }
                    if next.kind != op.kind { tx.removeOperation(op) }
                    next.attempted = true
                    next.attemptedAt = at
                    tx.putOperation(next)
                    again.append(next)
                    resent.insert(next.sequence)
                case .conflict(let reason, let status, let message, let server, let fields):
                    var unsealed = op
                    unsealed.attempted = false
                    tx.putOperation(unsealed)
                    let client = try store.item(table: op.table, id: op.id)
                    tx.putConflict(Conflict(table: op.table, id: client?.id ?? op.id, reason: reason, operation: op.reference,
                                            status: status, detectedBy: .push, detectedAt: at, message: message,
                                            base: op.base, client: client, server: server, fields: fields))
                    conflicted.insert(key)
                    report.sent[op.kind, default: 0] += 1
                    done += 1
                    if reason == .rejected {
                        report.newRejections += 1
                        report.lines.append(.init(kind: op.kind, table: op.table, id: op.id, result: .rejected(status: status, message: message)))
                    } else {
                        report.newConflicts += 1
                        let description = Conflict(table: op.table, id: op.id, reason: reason, operation: op.reference, status: status,
                                                   detectedBy: .push, detectedAt: at, message: nil, base: op.base, client: client,
                                                   server: server, fields: fields).kindDescription
                        report.lines.append(.init(kind: op.kind, table: op.table, id: op.id,
                                                  result: .conflict(status: status, description: Self.describe(description, fields))))
                    }
                case .stopped(let stop, let unsealed):
                    if report.stop == nil { report.stop = stop }
                    if unsealed { tx.putOperation(cleared()) }
                    report.lines.append(.init(kind: op.kind, table: op.table, id: op.id, result: .stopped))
                case .notSent:
                    // Only this push's own marker is cleared (§3.5.4). A marker left by an earlier
                    // run stays: that run's request may have landed, and only a replay check can tell.
                    if !leftover { tx.putOperation(cleared()) }
                }
            }
            try store.commit(tx)
            queue = (again + queue).sorted { $0.sequence < $1.sequence }
            progress?(SyncProgress(phase: "push", done: done, total: total,
                                   elapsed: Double(clock.nowMilliseconds() - started) / 1000))
        }
        report.remaining = try store.operationNames().count
        report.openConflicts = try store.conflictNames().count
        return report
    }

    static func describe(_ kind: String, _ fields: [String]) -> String {
        guard !fields.isEmpty else { return kind }
        return "\(fields.joined(separator: ", ")) changed on both sides"
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
