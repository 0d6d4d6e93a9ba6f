import TodoModel
import TodoStore

/// Turns the decisions of one batch into the writes of one store transaction and the report's
/// counts (sync.md §4.5.2 success, §4.6.4 recording a conflict, §4.8.2 stops, §3.5.4 markers).
///
/// The only store reads a batch needs, the local copies of some items, are done in one place
/// (`localItems`) before anything is staged; `apply` itself reads nothing, so what a decision
/// writes depends on the decision and those copies alone.
enum PushApplier {
    /// One op's decision, with what the queue knows around it.
    struct Entry {
        var op: PendingOperation
        var decision: PushDecision
        /// Sealed by an earlier run: a marker this push did not set, never cleared by `notSent`.
        var sealedAtStart: Bool
        /// The item's next queued op, for a success: its base becomes S.
        var next: PendingOperation?
        /// `attemptedAt` as the op came into this push (absent: not known).
        var attemptedAtBefore: String??
    }

    /// What the queue must take over from a batch.
    struct QueueChanges {
        /// Next ops whose base became S, as staged.
        var rebased: [PendingOperation] = []
        /// Ops staged sealed to be sent again (`sendAgain`), as staged.
        var resend: [PendingOperation] = []
    }

    /// Whether staging `entry` needs the local copy of its item: to keep its user fields behind
    /// a later op, to take an auto-merge, or for the conflict file's client copy.
    static func needsLocalItem(_ entry: Entry) -> Bool {
        switch entry.decision {
        case .succeeded(let server, _): server != nil && entry.next != nil
        case .sendAgain(_, _, let merged): merged
        case .recordConflict, .reject: true
        case .stop, .notSent: false
        }
    }

    /// The store reads of a batch: the local copy of each item whose entry needs one, else nil.
    static func localItems(_ entries: [Entry], in store: Store) throws(StoreError) -> [Item?] {
        var items: [Item?] = []
        items.reserveCapacity(entries.count)
        for entry in entries {
            items.append(needsLocalItem(entry) ? try store.item(table: entry.op.table, id: entry.op.id) : nil)
        }
        return items
    }

    /// Stages every entry into `tx` and counts it in `report`. `local` is `localItems(entries)`.
    static func apply(_ entries: [Entry], local: [Item?], at: String, into tx: inout StoreTransaction,
                      report: inout PushReport) -> QueueChanges {
        var changes = QueueChanges()
        for (entry, local) in zip(entries, local) {
            let op = entry.op
            switch entry.decision {
            case .succeeded(let server, let receipt):
                report.sent[op.kind, default: 0] += 1
                report.succeeded += 1
                tx.removeOperation(op)
                if var next = entry.next {
                    if let server {
                        next.base = server
                        tx.putOperation(next)
                        changes.rebased.append(next)
                        // The item keeps its user fields (they hold the later change) and takes S's.
                        if let local {
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
                report.add(.init(kind: op.kind, table: op.table, id: op.id, result: result))
            case .sendAgain(var next, let receipt, let merged):
                if merged {
                    report.merged += 1
                    if let local { tx.putItem(Item(id: local.id, fields: next.item.fields, system: local.system), table: op.table) }
                }
                if let receipt { var r = receipt; r.at = at; tx.addReceipt(r) }
                if next.kind != op.kind { tx.removeOperation(op) }
                // Sealed again in the commit that stores it (§4.3.1): it goes before its request.
                next.attempted = true
                next.attemptedAt = at
                tx.putOperation(next)
                changes.resend.append(next)
            case .recordConflict(let status, let message, let server, let fields):
                let fields = clashes(op, client: local, server: server) ?? fields
                let conflict = record(op, .conflict, status: status, message: message, server: server, fields: fields, client: local, at: at, into: &tx)
                report.sent[op.kind, default: 0] += 1
                report.newConflicts += 1
                report.add(.init(kind: op.kind, table: op.table, id: op.id,
                                          result: .conflict(status: status, kind: conflict.kind, fields: fields)))
            case .reject(let status, let message, let server):
                record(op, .rejected, status: status, message: message, server: server, fields: [], client: local, at: at, into: &tx)
                report.sent[op.kind, default: 0] += 1
                report.newRejections += 1
                report.add(.init(kind: op.kind, table: op.table, id: op.id, result: .rejected(status: status, message: message)))
            case .stop(let stop, let unsealed):
                if report.stop == nil { report.stop = stop }
                if unsealed { tx.putOperation(cleared(entry)) }
                report.add(.init(kind: op.kind, table: op.table, id: op.id, result: .stopped))
            case .notSent:
                // Only this push's own marker is cleared (§3.5.4). A marker left by an earlier
                // run stays: that run's request may have landed, and only a replay check can tell.
                if !entry.sealedAtStart { tx.putOperation(cleared(entry)) }
            }
        }
        return changes
    }

    /// §4.6.4: the conflict file, and the op unsealed and left in the queue.
    @discardableResult
    private static func record(_ op: PendingOperation, _ reason: Conflict.Reason, status: Int, message: String?, server: Item?,
                               fields: [String], client: Item?, at: String, into tx: inout StoreTransaction) -> Conflict {
        var unsealed = op
        unsealed.attempted = false
        tx.putOperation(unsealed)
        let conflict = Conflict(table: op.table, id: client?.id ?? op.id, reason: reason, operation: op.reference,
                                status: status, detectedBy: .push, detectedAt: at, message: message,
                                base: op.base, client: client, server: server, fields: fields)
        tx.putConflict(conflict)
        return conflict
    }

    /// The op with its marker cleared, as it was before this push sealed it: when no request of
    /// this push can have applied, it ends byte for byte as it was.
    private static func cleared(_ entry: Entry) -> PendingOperation {
        var op = entry.op
        op.attempted = false
        if let before = entry.attemptedAtBefore { op.attemptedAt = before }
        return op
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
}
