import TodoModel
import TodoStore

/// What one pulled row does to the replica (sync.md §5.5, and §7.4 for an open conflict), as a
/// value the tests compare and the applier counts.
enum RowDecision: Equatable, Sendable {
    /// How a row lands on the item.
    enum Landing: Equatable, Sendable {
        /// Case 3: a new item.
        case created
        /// Case 3: the item is replaced by the row.
        case updated
        /// Case 2: the item is removed.
        case removed
        /// Cases 4 and 9: the pending change is already on the server; its op goes.
        case absorbed
        /// Case 10: the pending change merges cleanly with the row; the op is rebased.
        case merged
        /// Case 13: deleted on both sides; the op goes.
        case bothDeleted
    }

    /// Why a row changes nothing.
    enum Skip: Equatable, Sendable {
        /// Cases 2 and 3 again: the replica already holds the row (or lacks a deleted one).
        case alreadyThere
        /// Cases 7 and 12: the server has not changed since the op's base.
        case serverUnchangedSinceBase
        /// Case 15: sealed ops, or more than one op; the push's replay check reconciles the item.
        case sealedOrManyOperations
    }

    /// What refreshing an open conflict did (§7.4).
    enum Refresh: Equatable, Sendable {
        /// The conflict's `server` already has the row's version: left alone.
        case alreadyCurrent
        /// `server` := R (and `fields` recomputed): the conflict stays open.
        case stillOpen
        /// The row settles the conflict: it closes with the effect of case 4, 9, 10 or 13.
        case closes(Landing)
    }

    /// Cases 2–4, 9, 10, 13: the row lands.
    case apply(Landing)
    /// Case 1: the local copy stays and the open conflict is refreshed.
    case refreshConflict(Refresh)
    /// Cases 5, 6, 8, 11, 14: a new conflict, with the clashing fields (empty when one side deleted).
    case recordConflict(fields: [String])
    case skip(Skip)
}

/// The decisions for one page of rows, in the order received, with the store changes each one
/// needs, and the local state each touched item has once the page commits.
struct PagePlan {
    struct Row {
        var table: String
        var id: String
        var decision: RowDecision
        /// nil: leave the item file alone.
        var item: Change<Item>?
        var removals: [PendingOperation] = []
        var writes: [PendingOperation] = []
        /// nil: leave the conflict file alone.
        var conflict: Change<Conflict>?
        var receipts: [Receipt] = []
        /// The id, spelt otherwise, of an item that came from the server (sync.md §10.2): the
        /// server holds, or held, two rows the replica keeps as one.
        var otherSpelling: String?
    }

    enum Change<Value: Equatable & Sendable>: Equatable, Sendable {
        case write(Value)
        /// Remove the file of the item or conflict with this id.
        case remove(id: String)
    }

    var rows: [Row] = []
    /// `LocalIndex.slot` → the item's state after the page (for the index's commit).
    var after: [String: PulledRow.Local] = [:]
}

extension PullPlanner {
    /// §5.5 for every row of a page, in the order received. `locals` holds the state on disk of
    /// every item the page names (`LocalIndex.load`); a later row of the same item meets the state
    /// the earlier one leaves, as it will on disk.
    static func page(_ rows: [Item], table: String, locals: [String: PulledRow.Local], now: String) -> PagePlan {
        var plan = PagePlan()
        for row in rows {
            let slot = LocalIndex.slot(table, row.id)
            let local = plan.after[slot] ?? locals[slot] ?? PulledRow.Local(table: table, item: nil, operations: [], conflict: nil)
            let rule = PulledRow.apply(row, to: local, now: now)
            plan.rows.append(Self.row(row, local: local, rule: rule))
            plan.after[slot] = after(local, rule)
        }
        return plan
    }

    static func row(_ row: Item, local: PulledRow.Local, rule: PulledRow.Plan) -> PagePlan.Row {
        var out = PagePlan.Row(table: local.table, id: row.id, decision: decision(rule, local: local))
        if let item = rule.item {
            if let item { out.item = .write(item) } else if let existing = local.item { out.item = .remove(id: existing.id) }
        }
        out.removals = rule.removals
        out.writes = rule.writes
        if let conflict = rule.conflict {
            out.conflict = conflict.map { .write($0) } ?? .remove(id: local.conflict?.id ?? row.id)
        }
        out.receipts = rule.receipts
        // An item created here and never pulled is not another spelling: the row is its own
        // insert, spelt otherwise (the SDK's `testPullKeepsPendingChangesWithDifferentCasedId`).
        if let existing = local.item, existing.id != row.id, existing.system.version != nil || existing.system.updatedAt != nil {
            out.otherSpelling = existing.id
        }
        return out
    }

    /// The rule's outcome as a decision: what the tests of §5.5 and §7.4 compare, and what the
    /// report counts.
    static func decision(_ rule: PulledRow.Plan, local: PulledRow.Local) -> RowDecision {
        switch rule.outcome {
        case .created: .apply(.created)
        case .updated: .apply(.updated)
        case .removed: .apply(.removed)
        case .absorbed: .apply(.absorbed)
        case .merged: .apply(.merged)
        case .bothDeleted: .apply(.bothDeleted)
        case .conflict:
            if case .some(.some(let conflict)) = rule.conflict { .recordConflict(fields: conflict.fields) } else { .recordConflict(fields: []) }
        case .conflictRefreshed: .refreshConflict(.stillOpen)
        case .conflictClosed: .refreshConflict(.closes(closing(rule)))
        case .unchanged: local.conflict != nil ? .refreshConflict(.alreadyCurrent) : .skip(.alreadyThere)
        case .skippedPending: .skip(.serverUnchangedSinceBase)
        case .skippedSealed: .skip(.sealedOrManyOperations)
        }
    }

    /// §7.4: a closing refresh has the effect of case 4, 9, 10 or 13, told by its receipt.
    static func closing(_ rule: PulledRow.Plan) -> RowDecision.Landing {
        if rule.receipts.contains(where: { $0.decision == .merge }) { return .merged }
        if rule.receipts.contains(where: { $0.decision == .bothDeleted }) { return .bothDeleted }
        return .absorbed
    }

    /// The item's state once the row's changes are in, for later rows of the same page.
    static func after(_ local: PulledRow.Local, _ rule: PulledRow.Plan) -> PulledRow.Local {
        var next = local
        if let item = rule.item { next.item = item }
        let removed = Set(rule.removals.map(\.sequence))
        let written = Set(rule.writes.map(\.sequence))
        next.operations = (local.operations.filter { !removed.contains($0.sequence) && !written.contains($0.sequence) } + rule.writes)
            .sorted { $0.sequence < $1.sequence }
        if let conflict = rule.conflict { next.conflict = conflict }
        return next
    }
}
