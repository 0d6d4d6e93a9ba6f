import TodoModel
import TodoStore

/// The state of one push: the ops still to send, and what the answers so far have taught.
///
/// `PushEngine` decides when things are committed; this type only picks batches and stages
/// markers and outcomes into transactions (it reads the store, never writes it).
struct PushRun {
    /// Ops of one batch: at most one per item, so an item's ops stay strictly sequential.
    struct Batch {
        var ops: [PendingOperation] = []
        /// Sealed by an earlier run, so the replay check goes first (§4.4.1).
        var sealedAtStart: [Bool] = []
        var items: Set<ItemKey> = []
        var isEmpty: Bool { ops.isEmpty }
    }

    let store: Store
    var report = PushReport()
    let total: Int
    var done = 0
    /// Sequences still to send, ascending; the ops themselves by sequence.
    private var queue: [Int]
    private var ops: [Int: PendingOperation]
    private var conflicted: Set<ItemKey>
    private var remainingPerItem: [ItemKey: Int] = [:]
    private var merges: [Int: Int] = [:]
    private var insertedAgain = Set<Int>()
    /// Ops this push committed sealed for a resend: their last request was answered, so they
    /// need no replay check, and a stop before the resend clears their marker.
    private var resent = Set<Int>()
    /// `attemptedAt` as each op came in, put back when a marker is cleared because no request
    /// of this push can have applied: such an op ends byte for byte as it was.
    private var attemptedAtBefore: [Int: String?] = [:]

    init(store: Store, table: String?) throws(StoreError) {
        self.store = store
        let all = try store.operations(table: table)
        total = all.count
        queue = all.map(\.sequence)
        ops = Dictionary(all.map { ($0.sequence, $0) }, uniquingKeysWith: { a, _ in a })
        conflicted = Set(try store.conflicts().map { ItemKey($0.table, $0.id) })
        for op in all {
            remainingPerItem[ItemKey(op), default: 0] += 1
            attemptedAtBefore[op.sequence] = op.attemptedAt
        }
    }

    /// Every op still to send, in queue order.
    var operations: [PendingOperation] { queue.map { ops[$0]! } }

    /// The first op of each item that is neither held (§4.2) nor in `busy`, in queue order, up
    /// to `size`. Held ops leave the queue and are counted as they are met.
    mutating func nextBatch(size: Int, busy: Set<ItemKey>) -> Batch {
        var batch = Batch()
        var kept: [Int] = []
        kept.reserveCapacity(queue.count)
        var index = 0
        while index < queue.count, batch.ops.count < size {
            let op = ops[queue[index]]!
            index += 1
            let key = ItemKey(op)
            if conflicted.contains(key) {
                report.held += 1
                report.lines.append(.init(kind: op.kind, table: op.table, id: op.id, result: .held))
                ops[op.sequence] = nil
                continue
            }
            if busy.contains(key) || batch.items.contains(key) {
                kept.append(op.sequence)
                continue
            }
            batch.items.insert(key)
            batch.ops.append(op)
            batch.sealedAtStart.append(op.attempted && !resent.contains(op.sequence))
        }
        kept.append(contentsOf: queue[index...])
        queue = kept
        return batch
    }

    /// Stages the in-flight markers (§4.3.1); they must be committed before any request leaves.
    func stageMarkers(_ batch: inout Batch, at now: String, into tx: inout StoreTransaction) {
        for i in batch.ops.indices where !batch.ops[i].attempted {
            batch.ops[i].attempted = true
            batch.ops[i].attemptedAt = now
            tx.putInFlightMarker(batch.ops[i])
        }
    }

    func contexts(_ batch: Batch) -> [OperationSender.Context] {
        batch.ops.indices.map { i in
            let op = batch.ops[i]
            return OperationSender.Context(op: op, sealedAtStart: batch.sealedAtStart[i],
                                           onlyOp: remainingPerItem[ItemKey(op), default: 1] == 1,
                                           merges: merges[op.sequence, default: 0],
                                           insertedAgain: insertedAgain.contains(op.sequence))
        }
    }

    /// Stages every outcome of `batch`. Ops to send again go back into the queue, sealed.
    mutating func stageOutcomes(_ batch: Batch, _ outcomes: [SendOutcome], at: String,
                                into tx: inout StoreTransaction) throws(StoreError) {
        for ((op, outcome), leftover) in zip(zip(batch.ops, outcomes), batch.sealedAtStart) {
            let key = ItemKey(op)
            resent.remove(op.sequence)
            ops[op.sequence] = nil
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
                if remainingPerItem[key, default: 0] > 0, let next = queue.first(where: { ItemKey(ops[$0]!) == key }) {
                    if let server {
                        ops[next]!.base = server
                        tx.putOperation(ops[next]!)
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
                requeue(next)
            case .conflict(let reason, let status, let message, let server, let fields):
                var unsealed = op
                unsealed.attempted = false
                tx.putOperation(unsealed)
                let client = try store.item(table: op.table, id: op.id)
                let fields = reason == .rejected ? fields : Self.clashes(op, client: client, server: server) ?? fields
                let conflict = Conflict(table: op.table, id: client?.id ?? op.id, reason: reason, operation: op.reference,
                                        status: status, detectedBy: .push, detectedAt: at, message: message,
                                        base: op.base, client: client, server: server, fields: fields)
                tx.putConflict(conflict)
                conflicted.insert(key)
                report.sent[op.kind, default: 0] += 1
                done += 1
                if reason == .rejected {
                    report.newRejections += 1
                    report.lines.append(.init(kind: op.kind, table: op.table, id: op.id, result: .rejected(status: status, message: message)))
                } else {
                    report.newConflicts += 1
                    report.lines.append(.init(kind: op.kind, table: op.table, id: op.id,
                                              result: .conflict(status: status, description: PushEngine.describe(conflict.kindDescription, fields))))
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
    }

    /// The fields `resolve --merge` will find changed on both sides, from the copies the conflict
    /// file holds. The push rules compared the op's `item`; behind a sealed op the local item has
    /// moved on, and the file must not promise a merge that then clashes. Nil: no merge applies.
    static func clashes(_ op: PendingOperation, client: Item?, server: Item?) -> [String]? {
        guard op.kind != .delete, let client, let server, !server.isDeleted else { return nil }
        let base = op.kind == .insert ? [:] : (op.base?.fields ?? [:])
        if case .clash(let fields) = ThreeWayMerge.merge(base: base, client: client.fields, server: server.fields) { return fields }
        return []
    }

    /// Puts an op to send again back at its place in the queue (ahead of its item's later ops).
    private mutating func requeue(_ op: PendingOperation) {
        ops[op.sequence] = op
        resent.insert(op.sequence)
        var low = 0, high = queue.count
        while low < high {
            let mid = (low + high) / 2
            if queue[mid] < op.sequence { low = mid + 1 } else { high = mid }
        }
        queue.insert(op.sequence, at: low)
    }
}
