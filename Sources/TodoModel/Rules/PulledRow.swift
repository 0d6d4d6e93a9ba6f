/// How one pulled row meets the replica (sync.md §5.5, and §7.4 for open conflicts). Pure: the
/// pull engine gathers the item's local state, applies the plan, and commits per page.
public enum PulledRow {
    /// The item's local state. `operations` in queue order.
    public struct Local: Sendable {
        public var table: String
        public var item: Item?
        public var operations: [PendingOperation]
        public var conflict: Conflict?

        public init(table: String, item: Item?, operations: [PendingOperation], conflict: Conflict?) {
            self.table = table
            self.item = item
            self.operations = operations
            self.conflict = conflict
        }
    }

    /// What the row did, for the report.
    public enum Outcome: Equatable, Sendable {
        case created, updated, removed, unchanged, merged, absorbed, conflict, conflictRefreshed, conflictClosed
        case bothDeleted, skippedPending, skippedSealed
    }

    public struct Plan: Sendable {
        public var outcome: Outcome
        /// nil: leave the item file alone; `.some(nil)`: remove it; `.some(item)`: write it.
        public var item: Item??
        public var writes: [PendingOperation] = []
        public var removals: [PendingOperation] = []
        /// nil: leave the conflict file alone; `.some(nil)`: remove it.
        public var conflict: Conflict??
        public var receipts: [Receipt] = []

        init(_ outcome: Outcome, item: Item?? = nil, conflict: Conflict?? = nil) {
            self.outcome = outcome
            self.item = item
            self.conflict = conflict
        }
    }

    /// `row` is the normalised server copy (`ms_deleted` true when deleted).
    public static func apply(_ row: Item, to local: Local, now: String) -> Plan {
        if let conflict = local.conflict { return refresh(conflict, row: row, local: local, now: now) }
        let ops = local.operations
        guard let op = ops.first else {
            if row.isDeleted { return local.item == nil ? Plan(.unchanged) : Plan(.removed, item: .some(nil)) }
            let stored = itemCopy(row)
            if let existing = local.item, existing == stored { return Plan(.unchanged) }
            return Plan(local.item == nil ? .created : .updated, item: .some(stored))
        }
        guard ops.count == 1, !op.isSealed else { return Plan(.skippedSealed) }
        return applyToOperation(op, row: row, local: local, now: now)
    }

    /// Cases 4–14: one unsealed op.
    static func applyToOperation(_ op: PendingOperation, row: Item, local: Local, now: String) -> Plan {
        switch op.kind {
        case .insert:
            if row.isDeleted { return newConflict(op, row: row, fields: [], local: local, now: now) }
            if row.sameUserFields(as: op.item) { return absorb(op, row: row, local: local, now: now) }
            return newConflict(op, row: row, fields: PushRules.insertClash(op.item, row), local: local, now: now)
        case .update:
            if PushRules.sameVersion(op.base, row) { return Plan(.skippedPending) }
            if row.isDeleted { return newConflict(op, row: row, fields: [], local: local, now: now) }
            switch ThreeWayMerge.merge(base: op.base?.fields ?? [:], client: op.item.fields, server: row.fields) {
            case .clash(let fields):
                return newConflict(op, row: row, fields: fields, local: local, now: now)
            case .merged(let fields, let fromClient, let fromServer):
                if fields == row.fields { return absorb(op, row: row, local: local, now: now) }
                return merge(op, fields: fields, fromClient: fromClient, fromServer: fromServer, row: row, local: local, now: now)
            }
        case .delete:
            if PushRules.sameVersion(op.base, row) { return Plan(.skippedPending) }
            if row.isDeleted {
                var plan = Plan(.bothDeleted)
                plan.removals = [op]
                plan.receipts = [Receipt(at: now, decision: .bothDeleted, rule: "pull", table: local.table, id: op.id,
                                         operation: op.reference, kept: nil, lost: [:])]
                return plan
            }
            return newConflict(op, row: row, fields: [], local: local, now: now)
        }
    }

    /// §7.4: a row for an item with an open conflict refreshes it, and may close it.
    static func refresh(_ conflict: Conflict, row: Item, local: Local, now: String) -> Plan {
        var updated = conflict
        updated.server = row
        if conflict.reason == .rejected { return Plan(.conflictRefreshed, conflict: .some(updated)) }
        if let server = conflict.server, server.system.version != nil, server.system.version == row.system.version {
            return Plan(.unchanged)
        }
        let op = local.operations.first { $0.sequence == conflict.operation.sequence } ?? local.operations.first
        if let op, !row.isDeleted, op.kind != .delete {
            updated.fields = op.kind == .insert ? PushRules.insertClash(op.item, row)
                : clashes(base: op.base, client: op.item, server: row)
        } else {
            updated.fields = []
        }
        guard updated.resolved.isNull, let op else { return Plan(.conflictRefreshed, conflict: .some(updated)) }
        let onlyOp = local.operations.count == 1
        var closing: Plan? = nil
        switch op.kind {
        case .update where onlyOp && !row.isDeleted && !op.restore:
            if case .merged(let fields, let fromClient, let fromServer) =
                ThreeWayMerge.merge(base: op.base?.fields ?? [:], client: op.item.fields, server: row.fields) {
                closing = fields == row.fields ? absorb(op, row: row, local: local, now: now)
                    : merge(op, fields: fields, fromClient: fromClient, fromServer: fromServer, row: row, local: local, now: now)
            }
        case .insert where onlyOp && !row.isDeleted && row.sameUserFields(as: op.item):
            closing = absorb(op, row: row, local: local, now: now)
        case .delete where onlyOp && row.isDeleted:
            var plan = Plan(.bothDeleted)
            plan.removals = [op]
            plan.receipts = [Receipt(at: now, decision: .bothDeleted, rule: "pull", table: local.table, id: op.id,
                                     operation: op.reference, kept: nil, lost: [:])]
            closing = plan
        default:
            break
        }
        guard var plan = closing else { return Plan(.conflictRefreshed, conflict: .some(updated)) }
        plan.outcome = .conflictClosed
        plan.conflict = .some(nil)
        return plan
    }

    // MARK: Effects

    static func absorb(_ op: PendingOperation, row: Item, local: Local, now: String) -> Plan {
        var plan = Plan(.absorbed, item: .some(itemCopy(row)))
        plan.removals = [op]
        plan.receipts = [Receipt(at: now, decision: .absorb, rule: "pull", table: local.table, id: row.id,
                                 operation: op.reference, kept: row.userCopy, lost: [:])]
        return plan
    }

    static func merge(_ op: PendingOperation, fields: [String: JSONValue], fromClient: [String], fromServer: [String],
                      row: Item, local: Local, now: String) -> Plan {
        let merged = Item(id: row.id, fields: fields, system: itemCopy(row).system)
        var rebased = op
        rebased.item = merged.userCopy
        rebased.base = row
        var plan = Plan(.merged, item: .some(merged))
        plan.writes = [rebased]
        plan.receipts = [Receipt(at: now, decision: .merge, rule: "pull", table: local.table, id: row.id,
                                 operation: op.reference, kept: merged.userCopy, lost: [:],
                                 fields: (fromClient, fromServer))]
        return plan
    }

    static func newConflict(_ op: PendingOperation, row: Item, fields: [String], local: Local, now: String) -> Plan {
        let conflict = Conflict(table: local.table, id: local.item?.id ?? op.id, reason: .conflict, operation: op.reference,
                                status: nil, detectedBy: .pull, detectedAt: now, message: nil, base: op.base,
                                client: local.item, server: row, fields: fields)
        return Plan(.conflict, conflict: .some(conflict))
    }

    /// The item file's form of a server copy: no `ms_deleted`.
    public static func itemCopy(_ row: Item) -> Item {
        var system = row.system
        system.deleted = nil
        return Item(id: row.id, fields: row.fields, system: system)
    }

    static func clashes(base: Item?, client: Item, server: Item) -> [String] {
        if case .clash(let fields) = ThreeWayMerge.merge(base: base?.fields ?? [:], client: client.fields, server: server.fields) {
            return fields
        }
        return []
    }
}
