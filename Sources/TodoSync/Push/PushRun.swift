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
    /// The queue, read a window at a time in sequence order (issue 21).
    private let windows: QueueWindows
    /// Sequences read and still to send, ascending; the ops themselves by sequence.
    private var queue: [Int] = []
    private var ops: [Int: PendingOperation] = [:]
    /// What the queue says about each read op's item beyond the window (`QueueWindows.Entry`).
    private var followers: [Int: QueueWindows.Entry] = [:]
    /// The highest sequence read so far: an op above it is still in its file.
    private var readUpTo = Int.min
    /// Ops above `readUpTo` rebased on S (their item's previous op succeeded), by the `apply`
    /// that staged them: their files may still hold the old base until that commit is done.
    private var rebasedAhead: [Int: (op: PendingOperation, apply: Int)] = [:]
    private var applies = 0
    private var conflicted: Set<ItemKey>
    private var merges: [Int: Int] = [:]
    private var insertedAgain = Set<Int>()
    /// Ops this push committed sealed for a resend: their last request was answered, so they
    /// need no replay check, and a stop before the resend clears their marker.
    private var resent = Set<Int>()
    /// `attemptedAt` as each op came in, put back when a marker is cleared because no request
    /// of this push can have applied: such an op ends byte for byte as it was.
    private var attemptedAtBefore: [Int: String?] = [:]

    init(store: Store, table: String?, window: Int, wholeQueueUpTo: Int) throws(StoreError) {
        self.store = store
        windows = try QueueWindows(store, table: table, window: window, wholeUpTo: wholeQueueUpTo)
        total = windows.count
        conflicted = Set(try store.conflicts().map { ItemKey($0.table, $0.id) })
    }

    /// Hand edits of the queued items (see `PushEngine.run`), looked for a window at a time: an
    /// item's last op and its item file. A queue of one window stays read for the push; a
    /// longer one is read again, window by window, as it is sent.
    mutating func handEdits() throws(StoreError) -> [HandEdit] {
        if windows.count <= windows.window {
            try readWindow()
            return try store.handEdits(of: queue.map { ops[$0]! })
        }
        var edits: [HandEdit] = []
        while true {
            let entries = try windows.nextWindow()
            if entries.isEmpty { break }
            let last = try store.operations(named: entries.filter { $0.later == 0 }.map(\.name))
            report.mostOperationsHeld = max(report.mostOperationsHeld, last.count)
            edits += try store.handEdits(of: last)
        }
        try windows.rewind()
        return edits.sorted { $0.path < $1.path }
    }

    /// Reads the next window's ops into the queue; false once the queue is read.
    @discardableResult
    private mutating func readWindow() throws(StoreError) -> Bool {
        let entries = try windows.nextWindow()
        guard let last = entries.last else { return false }
        readUpTo = last.name.sequence
        for entry in entries { followers[entry.name.sequence] = entry }
        for var op in try store.operations(named: entries.map(\.name)) {
            if let rebased = rebasedAhead.removeValue(forKey: op.sequence) { op = rebased.op }
            queue.append(op.sequence)
            ops[op.sequence] = op
            attemptedAtBefore[op.sequence] = op.attemptedAt
        }
        report.mostOperationsHeld = max(report.mostOperationsHeld, ops.count + rebasedAhead.count)
        return true
    }

    /// The op's state once it leaves the queue for good.
    private mutating func forget(_ sequence: Int) {
        ops[sequence] = nil
        followers[sequence] = nil
        attemptedAtBefore[sequence] = nil
        merges[sequence] = nil
        insertedAgain.remove(sequence)
        resent.remove(sequence)
    }

    /// The first op of each item that is neither held (§4.2) nor in `busy`, in queue order, up
    /// to `size`. Held ops leave the queue and are counted as they are met. The next window is
    /// read while less than a window is left, so a batch is picked among as many ops as before
    /// windows unless one window's items are all busy.
    mutating func nextBatch(size: Int, busy: Set<ItemKey>) throws(StoreError) -> Batch {
        while queue.count < windows.window, try readWindow() {}
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
                report.add(.init(kind: op.kind, table: op.table, id: op.id, result: .held))
                forget(op.sequence)
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
                                           onlyOp: (followers[op.sequence]?.later ?? 0) == 0,
                                           merges: merges[op.sequence, default: 0],
                                           insertedAgain: insertedAgain.contains(op.sequence))
        }
    }

    /// Stages the decisions of `batch` (through `PushApplier`) and keeps the queue's books: ops
    /// to send again go back into the queue, sealed; a conflicted item's later ops are held.
    mutating func apply(_ batch: Batch, _ decisions: [PushDecision], at: String,
                        into tx: inout StoreTransaction) throws(StoreError) {
        applies += 1
        // Rebased two applies ago or more: committed (the engine commits each apply's stage
        // while the next batch is on the wire), so a window reads it from its file.
        rebasedAhead = rebasedAhead.filter { $0.value.apply > applies - 2 }
        var entries: [PushApplier.Entry] = []
        entries.reserveCapacity(decisions.count)
        for ((op, decision), sealedAtStart) in zip(zip(batch.ops, decisions), batch.sealedAtStart) {
            var next: PendingOperation?
            // The item's next op, for its base: read, or still in its file past the window.
            if case .succeeded = decision, let name = followers[op.sequence]?.next {
                next = ops[name.sequence] ?? rebasedAhead[name.sequence]?.op
                if next == nil { next = try store.operation(name) }
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
                forget(op.sequence)
            case .sendAgain(let next, _, let merged):
                if merged { merges[op.sequence, default: 0] += 1 }
                if next.kind == .insert && op.kind == .insert { insertedAgain.insert(op.sequence) }
            case .recordConflict, .reject:
                conflicted.insert(ItemKey(op))
                done += 1
                forget(op.sequence)
            case .stop, .notSent:
                break
            }
        }
        for op in changes.rebased {
            if op.sequence <= readUpTo { ops[op.sequence] = op } else { rebasedAhead[op.sequence] = (op, applies) }
        }
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
