import TodoModel
import TodoStore

/// The state of one push: the ops still to send, and what the answers so far have taught.
///
/// `PushEngine` decides when things are committed; this type keeps the queue's books: it picks
/// batches, stages their markers, and hands their decisions to `PushApplier` (it reads the store,
/// never writes it).
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

    func contexts(_ batch: Batch) -> [PushPlanner.Context] {
        batch.ops.indices.map { i in
            let op = batch.ops[i]
            return PushPlanner.Context(op: op, sealedAtStart: batch.sealedAtStart[i],
                                           onlyOp: remainingPerItem[ItemKey(op), default: 1] == 1,
                                           merges: merges[op.sequence, default: 0],
                                           insertedAgain: insertedAgain.contains(op.sequence))
        }
    }

    /// Stages the decisions of `batch` (through `PushApplier`) and keeps the queue's books: ops
    /// to send again go back into the queue, sealed; a conflicted item's later ops are held.
    mutating func apply(_ batch: Batch, _ decisions: [PushDecision], at: String,
                        into tx: inout StoreTransaction) throws(StoreError) {
        var entries: [PushApplier.Entry] = []
        entries.reserveCapacity(decisions.count)
        for ((op, decision), sealedAtStart) in zip(zip(batch.ops, decisions), batch.sealedAtStart) {
            var next: PendingOperation?
            // Only an item with ops left needs the queue searched (a scan per op would make a
            // big push quadratic).
            if case .succeeded = decision, remainingPerItem[ItemKey(op), default: 1] > 1 {
                let key = ItemKey(op)
                next = queue.first(where: { ItemKey(ops[$0]!) == key }).map { ops[$0]! }
            }
            entries.append(.init(op: op, decision: decision, sealedAtStart: sealedAtStart, next: next,
                                 attemptedAtBefore: attemptedAtBefore[op.sequence]))
        }
        let local = try PushApplier.localItems(entries, in: store)
        let changes = PushApplier.apply(entries, local: local, at: at, into: &tx, report: &report)
        for entry in entries {
            let op = entry.op
            resent.remove(op.sequence)
            ops[op.sequence] = nil
            switch entry.decision {
            case .succeeded:
                done += 1
                remainingPerItem[ItemKey(op), default: 1] -= 1
            case .sendAgain(let next, _, let merged):
                if merged { merges[op.sequence, default: 0] += 1 }
                if next.kind == .insert && op.kind == .insert { insertedAgain.insert(op.sequence) }
            case .recordConflict, .reject:
                conflicted.insert(ItemKey(op))
                done += 1
            case .stop, .notSent:
                break
            }
        }
        for op in changes.rebased { ops[op.sequence] = op }
        for op in changes.resend { requeue(op) }
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
