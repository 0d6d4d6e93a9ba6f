/// How `todo resolve` settles a conflict (sync.md §8).
public enum ResolutionStrategy: Sendable, Equatable {
    case useClient, useServer, merge
    /// The user's `resolved` value: the wanted item (an object), the string "delete", or null
    /// when nothing was written yet.
    case manual(JSONValue)

    /// The receipt's rule (§9.1).
    public var rule: String {
        switch self {
        case .useClient: return "use-client"
        case .useServer: return "use-server"
        case .merge: return "merge"
        case .manual: return "manual"
        }
    }
}

/// Why a conflict could not be resolved; nothing changes.
public enum ResolutionFailure: Error, Equatable, Sendable {
    /// No flag, and `resolved` is null (§8.3.4).
    case noResolution(id: String)
    /// `--merge` met fields changed on both sides.
    case clash(id: String, fields: [String])
    /// `--merge` where either side deleted the item (`kind` is the conflict's kind, §7.3).
    case deletionCannotBeMerged(id: String, kind: Conflict.Kind)
    /// `--merge` on a rejection: there is no second version to merge with (§8.4).
    case nothingToMerge(id: String)
    /// `resolved` is not a valid item or "delete".
    case invalidResolution(id: String, reason: String)
    /// `resolved` leaves out fields that the base, client or server copy has (sorted).
    case incompleteResolution(id: String, fields: [String])
    /// The queue does not match the conflict (a hand-edited store); `todo doctor` says more.
    case inconsistent(id: String, Inconsistency)

    /// How the queue does not match the conflict; each names the operation (by sequence).
    public enum Inconsistency: Sendable, Equatable {
        /// The conflict's operation is pending, but not as the item's first.
        case notFirst(Int)
        /// The conflict's operation is not pending.
        case notPending(Int)
        /// An operation behind one that ends the item (a delete).
        case followsAnEnd(Int)
        /// An insert behind another operation.
        case insertBehind(Int)
        /// `sequence` cannot follow `after`, as a local change would be refused.
        case cannotFollow(sequence: Int, after: Int, ChangeRefusal)
        /// Folding it would queue a second operation.
        case cannotFold(Int)
    }
}

/// Everything one resolution changes, to be committed with the others of the same command.
public struct ResolutionPlan: Sendable {
    public var table: String
    public var id: String
    /// The item before and after; nil when absent (deleted here).
    public var itemBefore: Item?
    public var item: Item?
    /// Operations whose files are written (new content or a new kind).
    public var writes: [PendingOperation]
    /// Operations whose current files go away.
    public var removals: [PendingOperation]
    /// The item's operations after the resolution, in queue order (at most one).
    public var remaining: [PendingOperation]
    /// Collapse receipts of folded operations, then the `resolve` receipt. The store numbers them.
    public var receipts: [Receipt]
}

/// The resolution rules of sync.md §8: pure, so every row of the tables is tested without a store.
///
/// Inputs are the conflict, the item's operations in queue order (the conflicted one first) and the
/// local item. `--use-client` folds the later operations into the conflicted one by the collapse
/// table (§8.2 step 2). `--merge` and manual resolutions build the final copy from the local item,
/// which already holds the later changes, so the later operations are absorbed into it.
public enum ConflictResolution {
    public static func plan(_ conflict: Conflict, operations: [PendingOperation], item: Item?,
                            strategy: ResolutionStrategy, now: String) throws(ResolutionFailure) -> ResolutionPlan {
        let ops = operations.sorted { $0.sequence < $1.sequence }
        guard let first = ops.first, first.sequence == conflict.operation.sequence else {
            let sequence = conflict.operation.sequence
            throw .inconsistent(id: conflict.id, ops.contains { $0.sequence == sequence } ? .notFirst(sequence) : .notPending(sequence))
        }
        let draft = try mainEffect(conflict, op: first, item: item, strategy: strategy)
        var final = draft.op
        var after = draft.item
        var receipts: [Receipt] = []
        if draft.foldLater, final != nil {
            for later in ops.dropFirst() {
                try fold(later, into: &final, item: &after, receipts: &receipts, conflict: conflict, now: now)
            }
        }
        let remaining = final.map { [$0] } ?? []
        var receipt = Receipt(at: now, decision: .resolve, rule: strategy.rule, table: conflict.table, id: conflict.id,
                              operation: final?.reference ?? conflict.operation, kept: after?.userCopy,
                              lost: draft.mergedFields == nil
                                  ? ["client": lostValues(item?.fields, kept: after?.fields),
                                     "server": lostOnServer(conflict.server, kept: after?.fields)]
                                  : ["client": [:], "server": [:]],
                              fields: draft.mergedFields)
        receipt.note = draft.note
        receipts.append(receipt)
        return ResolutionPlan(table: conflict.table, id: conflict.id, itemBefore: item, item: after,
                              writes: remaining.filter { !ops.contains($0) },
                              removals: ops.filter { op in !remaining.contains { $0.sequence == op.sequence && $0.kind == op.kind } },
                              remaining: remaining, receipts: receipts)
    }

    /// The server copy as §8.2's columns see it.
    enum ServerState {
        case live(Item), deleted(Item), absent

        init(_ server: Item?) {
            guard let server else { self = .absent; return }
            self = server.isDeleted ? .deleted(server) : .live(server)
        }
    }

    /// The outcome of step 1: the conflicted operation (nil when every operation goes), the item,
    /// and whether later operations fold into it by the collapse table or are absorbed.
    struct Draft {
        var op: PendingOperation?
        var item: Item?
        var foldLater: Bool
        var mergedFields: (fromClient: [String], fromServer: [String])? = nil
        var note: String? = nil

        static func dropAll(item: Item?, note: String? = nil) -> Draft { Draft(op: nil, item: item, foldLater: false, note: note) }
    }

    static func mainEffect(_ c: Conflict, op: PendingOperation, item: Item?, strategy: ResolutionStrategy)
        throws(ResolutionFailure) -> Draft
    {
        let server = ServerState(c.server)
        var o = op
        o.attempted = false
        switch strategy {
        case .useServer:
            if case .live(let s) = server { return .dropAll(item: itemFile(from: s)) }
            return .dropAll(item: nil)
        case .useClient:
            if c.reason == .rejected { return Draft(op: o, item: item, foldLater: true) }
            return useClient(o, server: server, item: item)
        case .merge:
            return try merge(c, op: o, server: server, item: item)
        case .manual(let resolved):
            return try manual(c, op: o, server: server, item: item, resolved: resolved)
        }
    }

    /// §8.2, column `--use-client`: re-base the local state on the server copy.
    static func useClient(_ op: PendingOperation, server: ServerState, item: Item?) -> Draft {
        var o = op
        switch (op.kind, server) {
        case (.delete, .live(let s)):
            o.base = s
            return Draft(op: o, item: nil, foldLater: true)
        case (.delete, _):
            return .dropAll(item: nil, note: "deleted on both sides: nothing left to push")
        case (_, .live(let s)):
            o.kind = .update; o.base = s; o.restore = false
        case (_, .deleted(let s)):
            o.kind = .update; o.base = s; o.restore = true
        case (_, .absent):
            o.kind = .insert; o.base = nil; o.restore = false
        }
        let local = item ?? op.item
        return Draft(op: o, item: Item(id: local.id, fields: op.item.fields, system: systemOf(o.base)), foldLater: true)
    }

    /// §8.2, column `--merge`: base, local item and server copy (an empty base for an insert).
    static func merge(_ c: Conflict, op: PendingOperation, server: ServerState, item: Item?) throws(ResolutionFailure) -> Draft {
        if c.reason == .rejected { throw .nothingToMerge(id: c.id) }
        guard case .live(let s) = server, op.kind != .delete, let client = item else {
            throw .deletionCannotBeMerged(id: c.id, kind: c.kind)
        }
        let base = op.kind == .insert ? [:] : (op.base?.fields ?? [:])
        switch ThreeWayMerge.merge(base: base, client: client.fields, server: s.fields) {
        case .clash(let fields):
            throw .clash(id: c.id, fields: fields)
        case .merged(let fields, let fromClient, let fromServer):
            if fields == s.fields {
                var draft = Draft.dropAll(item: itemFile(from: s), note: "the server copy already holds every change")
                draft.mergedFields = (fromClient, fromServer)
                return draft
            }
            var o = op
            o.kind = .update; o.base = s; o.restore = false
            o.id = s.id
            o.item = Item(id: s.id, fields: fields)
            var draft = Draft(op: o, item: Item(id: s.id, fields: fields, system: systemOf(s)), foldLater: false)
            draft.mergedFields = (fromClient, fromServer)
            return draft
        }
    }

    /// §8.3 (and §8.4's manual rows): the user's `resolved` value.
    static func manual(_ c: Conflict, op: PendingOperation, server: ServerState, item: Item?, resolved: JSONValue)
        throws(ResolutionFailure) -> Draft
    {
        if resolved.isNull { throw .noResolution(id: c.id) }
        if resolved == "delete" {
            guard case .live(let s) = server else {
                return .dropAll(item: nil, note: "already deleted on the server: nothing left to push")
            }
            var o = op
            o.kind = .delete; o.base = s; o.restore = false
            o.item = (item ?? s).userCopy
            return Draft(op: o, item: nil, foldLater: false)
        }
        let fields = try ResolvedCopy.fields(resolved, id: c.id, required: ResolvedCopy.fieldNames(c))
        let id = item?.id ?? op.item.id
        var o = op
        o.item = Item(id: id, fields: fields)
        if c.reason == .rejected && op.kind != .delete {
            // §8.4: the op keeps its kind and base and is sent again.
            return Draft(op: o, item: Item(id: id, fields: fields, system: item?.system ?? systemOf(op.base)), foldLater: false)
        }
        switch server {
        case .live(let s):
            if fields == s.fields { return .dropAll(item: itemFile(from: s), note: "it equals the server copy: nothing left to push") }
            o.kind = .update; o.base = s; o.restore = false
        case .deleted(let s):
            o.kind = .update; o.base = s; o.restore = true
        case .absent:
            o.kind = .insert; o.base = nil; o.restore = false
        }
        return Draft(op: o, item: Item(id: id, fields: fields, system: systemOf(o.base)), foldLater: false)
    }

    /// Folds one later operation into the resolved one by the collapse table (§3.4), reusing
    /// `OperationLog` so the rules (and their receipts) are exactly those of a local change.
    static func fold(_ later: PendingOperation, into op: inout PendingOperation?, item: inout Item?,
                     receipts: inout [Receipt], conflict: Conflict, now: String) throws(ResolutionFailure) {
        guard let current = op else {
            throw .inconsistent(id: conflict.id, .followsAnEnd(later.sequence))
        }
        let change: LocalChange
        switch later.kind {
        case .update: change = .update(later.item.fields)
        case .delete: change = .delete
        case .insert: throw .inconsistent(id: conflict.id, .insertBehind(later.sequence))
        }
        let local = Item(id: item?.id ?? current.item.id, fields: current.item.fields, system: systemOf(current.base))
        let history = ItemHistory(table: current.table, id: current.id, item: current.kind == .delete ? nil : local,
                                  operations: [current], hasConflict: false)
        let plan: ChangePlan
        do {
            plan = try OperationLog.record(change, on: history, nextSequence: current.sequence + 1, now: now)
        } catch {
            throw .inconsistent(id: conflict.id, .cannotFollow(sequence: later.sequence, after: current.sequence, error))
        }
        switch plan.outcome {
        case .unchanged:
            break
        case .collapsed(_, let sequence):
            op = plan.writes.first { $0.sequence == sequence }
            item = plan.item
            receipts += plan.receipts
        case .queued:
            throw .inconsistent(id: conflict.id, .cannotFold(later.sequence))
        }
    }

    // MARK: Copies and lost values

    /// A server copy as an item file holds it: never `ms_deleted`.
    static func itemFile(from server: Item) -> Item {
        Item(id: server.id, fields: server.fields, system: systemOf(server))
    }

    /// The system properties an item takes from its base (none without one).
    static func systemOf(_ base: Item?) -> SystemProperties {
        guard let b = base?.system else { return .none }
        return SystemProperties(createdAt: b.createdAt, updatedAt: b.updatedAt, version: b.version)
    }

    /// A side's values that do not survive in `kept` (§9.2). A side that has no item (deleted
    /// locally) loses no values; when the item ends deleted, the side loses all of them.
    static func lostValues(_ side: [String: JSONValue]?, kept: [String: JSONValue]?) -> [String: JSONValue] {
        guard let side else { return [:] }
        guard let kept else { return side }
        return OperationLog.replacedValues(old: side, new: kept)
    }

    /// The server's lost values: a soft-deleted copy loses nothing when the item ends deleted, and
    /// loses the values a restore overwrites.
    static func lostOnServer(_ server: Item?, kept: [String: JSONValue]?) -> [String: JSONValue] {
        guard let server else { return [:] }
        if server.isDeleted && kept == nil { return [:] }
        return lostValues(server.fields, kept: kept)
    }
}
