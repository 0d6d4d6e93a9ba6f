/// A local change as the user asked for it.
public enum LocalChange: Sendable, Equatable {
    /// A new item (id and user fields).
    case insert(Item)
    /// The item's complete new set of user fields.
    case update([String: JSONValue])
    case delete
}

/// What the store knows about one item: the local copy, its pending operations (queue order),
/// and whether a conflict is open for it.
public struct ItemHistory: Sendable {
    public var table: String
    public var id: String
    public var item: Item?
    public var operations: [PendingOperation]
    public var hasConflict: Bool

    public init(table: String, id: String, item: Item?, operations: [PendingOperation], hasConflict: Bool) {
        self.table = table
        self.id = id
        self.item = item
        self.operations = operations.sorted { $0.sequence < $1.sequence }
        self.hasConflict = hasConflict
    }
}

/// Why a change was refused; nothing changes. `TodoCLI` words it (sync.md's texts).
public enum ChangeRefusal: Error, Equatable, Sendable {
    case conflictOpen(String)
    case alreadyExists(String)
    case alreadyQueuedForInsertion(String)
    case queuedForDeletion(String)
    case noSuchItem(String)
}

/// The effect of one local change, to be committed as one transaction.
public struct ChangePlan: Sendable {
    public enum Outcome: Sendable, Equatable {
        /// A new operation was queued.
        case queued(PendingOperation.Kind, sequence: Int)
        /// The change folded into a pending operation (`insert+update`, …); `sequence` is the
        /// operation that remains, nil when none does.
        case collapsed(rule: String, sequence: Int?)
        /// The change leaves the item exactly as it is: nothing is queued.
        case unchanged
    }

    public var outcome: Outcome
    /// The local item after the change; nil when it is removed.
    public var item: Item?
    /// Operations to write (new or changed).
    public var writes: [PendingOperation] = []
    /// Operations whose current file goes away (removed, or rewritten under another kind).
    public var removals: [PendingOperation] = []
    /// Receipts to write; the store numbers them.
    public var receipts: [Receipt] = []
    public var nextSequence: Int
}

/// The collapse rules of sync.md §3: pure, so every pair is tested without a store.
public enum OperationLog {
    public static func record(_ change: LocalChange, on history: ItemHistory, nextSequence: Int, now: String)
        throws(ChangeRefusal) -> ChangePlan
    {
        let id = history.item?.id ?? history.operations.last?.id ?? history.id
        if history.hasConflict { throw .conflictOpen(id) }

        guard let last = history.operations.last else {
            return try withoutPending(change, history: history, id: id, nextSequence: nextSequence, now: now)
        }
        if case .insert(let new) = change {
            switch last.kind {
            case .insert: throw .alreadyQueuedForInsertion(id)
            case .update: throw .alreadyExists(id)
            case .delete:
                if last.isSealed { throw .queuedForDeletion(id) }
                return readd(new, over: last, nextSequence: nextSequence, now: now)
            }
        }
        if last.kind == .delete { throw .noSuchItem(id) }
        guard let item = history.item else { throw .noSuchItem(id) }
        if case .update(let fields) = change, fields == item.fields {
            return ChangePlan(outcome: .unchanged, item: item, nextSequence: nextSequence)
        }
        return last.isSealed
            ? behindSealed(change, last: last, item: item, nextSequence: nextSequence, now: now)
            : collapse(change, into: last, item: item, nextSequence: nextSequence, now: now)
    }

    /// Table 3.3: the item has no pending operation.
    private static func withoutPending(_ change: LocalChange, history: ItemHistory, id: String, nextSequence: Int,
                                       now: String) throws(ChangeRefusal) -> ChangePlan {
        switch change {
        case .insert(let new):
            if history.item != nil { throw .alreadyExists(id) }
            let op = PendingOperation(sequence: nextSequence, table: history.table, id: new.id, kind: .insert,
                                      item: new, base: nil, queuedAt: now)
            return ChangePlan(outcome: .queued(.insert, sequence: nextSequence), item: new.userCopy, writes: [op],
                              nextSequence: nextSequence + 1)
        case .update(let fields):
            guard let item = history.item else { throw .noSuchItem(id) }
            if fields == item.fields { return ChangePlan(outcome: .unchanged, item: item, nextSequence: nextSequence) }
            var changed = item
            changed.fields = fields
            let op = PendingOperation(sequence: nextSequence, table: history.table, id: item.id, kind: .update,
                                      item: changed, base: item, queuedAt: now)
            return ChangePlan(outcome: .queued(.update, sequence: nextSequence), item: changed, writes: [op],
                              nextSequence: nextSequence + 1)
        case .delete:
            guard let item = history.item else { throw .noSuchItem(id) }
            let op = PendingOperation(sequence: nextSequence, table: history.table, id: item.id, kind: .delete,
                                      item: item, base: item, queuedAt: now)
            return ChangePlan(outcome: .queued(.delete, sequence: nextSequence), item: nil, writes: [op],
                              nextSequence: nextSequence + 1)
        }
    }

    /// Table 3.4: the last operation is unsealed, so the change folds into it.
    private static func collapse(_ change: LocalChange, into last: PendingOperation, item: Item, nextSequence: Int,
                                 now: String) -> ChangePlan {
        switch change {
        case .insert:
            preconditionFailure("inserts are refused before collapsing")
        case .update(let fields):
            var op = last
            op.item.fields = fields
            var newItem = item
            newItem.fields = fields
            let rule = "\(last.kind.rawValue)+update"
            var receipt = Receipt(at: now, decision: .collapse, rule: rule, table: last.table, id: last.id,
                                  operation: op.reference, kept: newItem,
                                  lost: ["client": replacedValues(old: last.item.fields, new: fields)])
            if last.kind == .update, let base = last.base, base.fields == fields {
                receipt.note = "nothing left to push: the item is back to its base"
                return ChangePlan(outcome: .collapsed(rule: rule, sequence: nil), item: newItem, removals: [last],
                                  receipts: [receipt], nextSequence: nextSequence)
            }
            return ChangePlan(outcome: .collapsed(rule: rule, sequence: op.sequence), item: newItem, writes: [op],
                              receipts: [receipt], nextSequence: nextSequence)
        case .delete:
            if last.kind == .insert {
                let receipt = Receipt(at: now, decision: .collapse, rule: "insert+delete", table: last.table,
                                      id: last.id, operation: last.reference, kept: nil,
                                      lost: ["client": item.fields])
                return ChangePlan(outcome: .collapsed(rule: "insert+delete", sequence: nil), item: nil,
                                  removals: [last], receipts: [receipt], nextSequence: nextSequence)
            }
            var op = last
            op.kind = .delete
            op.item = item.userCopy
            let localChanges = replacedValues(old: item.fields, new: last.base?.fields ?? [:])
            let receipt = Receipt(at: now, decision: .collapse, rule: "update+delete", table: last.table, id: last.id,
                                  operation: op.reference, kept: nil, lost: ["client": localChanges])
            return ChangePlan(outcome: .collapsed(rule: "update+delete", sequence: op.sequence), item: nil,
                              writes: [op], removals: [last], receipts: [receipt], nextSequence: nextSequence)
        }
    }

    /// Issue 19 item 3 (sync.md's table refuses it): an item removed here and added again before
    /// the delete was sent. The server still has the row, so the delete becomes an update of it in
    /// place (same sequence and base); when the new fields are the base's, nothing is left to push.
    private static func readd(_ new: Item, over last: PendingOperation, nextSequence: Int, now: String) -> ChangePlan {
        let base = last.base ?? last.item
        var item = base
        item.fields = new.fields
        let lost = replacedValues(old: last.item.fields, new: new.fields)
        var receipt = Receipt(at: now, decision: .collapse, rule: "delete+insert", table: last.table, id: last.id,
                              operation: last.reference, kept: item, lost: ["client": lost])
        if base.fields == new.fields {
            receipt.note = "nothing left to push: the item is back to its base"
            return ChangePlan(outcome: .collapsed(rule: "delete+insert", sequence: nil), item: item, removals: [last],
                              receipts: [receipt], nextSequence: nextSequence)
        }
        var op = last
        op.kind = .update
        op.item = item.userCopy
        receipt.operation = op.reference
        return ChangePlan(outcome: .collapsed(rule: "delete+insert", sequence: op.sequence), item: item,
                          writes: [op], removals: [last], receipts: [receipt], nextSequence: nextSequence)
    }

    /// Table 3.5: the last operation may have reached the server; its content is frozen, so the
    /// change is queued behind it with a provisional copy of its base.
    private static func behindSealed(_ change: LocalChange, last: PendingOperation, item: Item, nextSequence: Int,
                                     now: String) -> ChangePlan {
        switch change {
        case .insert:
            preconditionFailure("inserts are refused before queuing")
        case .update(let fields):
            var newItem = item
            newItem.fields = fields
            let op = PendingOperation(sequence: nextSequence, table: last.table, id: last.id, kind: .update,
                                      item: newItem, base: last.base, queuedAt: now)
            return ChangePlan(outcome: .queued(.update, sequence: nextSequence), item: newItem, writes: [op],
                              nextSequence: nextSequence + 1)
        case .delete:
            let op = PendingOperation(sequence: nextSequence, table: last.table, id: last.id, kind: .delete,
                                      item: item, base: last.base, queuedAt: now)
            return ChangePlan(outcome: .queued(.delete, sequence: nextSequence), item: nil, writes: [op],
                              nextSequence: nextSequence + 1)
        }
    }

    /// The fields whose value in `old` does not survive in `new`, with their old values
    /// (`null` for a field `old` lacked).
    public static func replacedValues(old: [String: JSONValue], new: [String: JSONValue]) -> [String: JSONValue] {
        var lost: [String: JSONValue] = [:]
        for name in Set(old.keys).union(new.keys) where (old[name] ?? .null) != (new[name] ?? .null) {
            lost[name] = old[name] ?? .null
        }
        return lost
    }
}
