/// The push's decisions once a server copy is known (sync.md §4.4.2 replay check, §4.6.2
/// conflicts). Pure: the push engine fetches, sends and commits; this says what it means.
public enum PushRules {
    /// What to do with an operation, given the server copy S.
    public enum Verdict: Equatable, Sendable {
        /// Not delivered: send the request.
        case send
        /// The operation's effect is on the server: success with S (nil for a delete), and the
        /// receipt to write, if any.
        case succeeded(server: Item?, receipt: ReceiptKind?)
        /// An auto-merge: the merged user fields become the item and the op's `item`, S the base,
        /// and the PATCH is sent again on S's version.
        case merged(fields: [String: JSONValue], fromClient: [String], fromServer: [String], server: Item)
        /// The undelete of a `restore` update landed: base := S, restore := false, then PATCH.
        case restoreLanded(server: Item)
        /// A 409 for an insert, but the server has no such row: send the insert once more.
        case insertAgain
        /// A conflict file: the status that revealed it and the clashing fields.
        case conflict(status: Int, fields: [String])
    }

    public struct ReceiptKind: Equatable, Sendable {
        public var decision: Receipt.Decision
        public var rule: String
        public init(_ decision: Receipt.Decision, _ rule: String) {
            self.decision = decision
            self.rule = rule
        }
    }

    // MARK: Replay check (§4.4.2)

    /// Decides a sealed op from the server copy S (nil when the GET answered 404).
    /// `onlyOp` says whether the op is its item's only pending op.
    public static func replay(_ op: PendingOperation, server s: Item?, onlyOp: Bool) -> Verdict {
        switch op.kind {
        case .insert:
            guard let s else { return .send }
            if s.isDeleted { return .conflict(status: 409, fields: []) }
            if s.sameUserFields(as: op.item) { return .succeeded(server: s, receipt: .init(.replay, "insert-exists")) }
            return .conflict(status: 409, fields: insertClash(op.item, s))
        case .update where op.restore:
            guard let s else { return .conflict(status: 412, fields: []) }
            if s.isDeleted, sameVersion(op.base, s) { return .send }
            if !s.isDeleted, let base = op.base, s.sameUserFields(as: base) { return .restoreLanded(server: s) }
            return .conflict(status: 412, fields: [])
        case .update:
            guard let s, !s.isDeleted else { return .conflict(status: 404, fields: []) }
            if sameVersion(op.base, s) { return .send }
            return afterConflictStatus(op, server: s, onlyOp: onlyOp, status: 412)
        case .delete:
            guard let s, !s.isDeleted else { return .succeeded(server: nil, receipt: .init(.replay, "delete-gone")) }
            if sameVersion(op.base, s) { return .send }
            return .conflict(status: 412, fields: [])
        }
    }

    // MARK: 409, 412, 404 on update, 410 (§4.6.2)

    public static func afterConflictStatus(_ op: PendingOperation, server s: Item?, onlyOp: Bool, status: Int) -> Verdict {
        switch op.kind {
        case .insert:
            guard let s else { return .insertAgain }
            if s.isDeleted { return .conflict(status: status, fields: []) }
            if s.sameUserFields(as: op.item) { return .succeeded(server: s, receipt: .init(.replay, "insert-exists")) }
            return .conflict(status: status, fields: insertClash(op.item, s))
        case .update:
            guard let s, !s.isDeleted else { return .conflict(status: status, fields: []) }
            if holdsChange(op, server: s) { return .succeeded(server: s, receipt: .init(.replay, "update-applied")) }
            // S is still the base: the refusal was not about a newer change (a 404 or 410 from a
            // server that still shows the row), so a merge would only send the same request again.
            if sameVersion(op.base, s) { return .conflict(status: status, fields: []) }
            let merge = ThreeWayMerge.merge(base: op.base?.fields ?? [:], client: op.item.fields, server: s.fields)
            switch merge {
            case .clash(let fields):
                return .conflict(status: status, fields: fields)
            case .merged(let fields, let fromClient, let fromServer):
                guard onlyOp else { return .conflict(status: status, fields: []) }
                if fields == s.fields { return .succeeded(server: s, receipt: .init(.absorb, "push")) }
                return .merged(fields: fields, fromClient: fromClient, fromServer: fromServer, server: s)
            }
        case .delete:
            guard let s, !s.isDeleted else { return .succeeded(server: nil, receipt: .init(.bothDeleted, "push")) }
            return .conflict(status: status, fields: [])
        }
    }

    // MARK: Helpers

    /// S holds the update: every field of the update body (the item, plus `null` for fields the
    /// base had and the item lacks) has the same value in S.
    public static func holdsChange(_ op: PendingOperation, server s: Item) -> Bool {
        for (name, value) in op.item.fields where s.fields[name] != value { return false }
        for name in op.base?.fields.keys ?? [:].keys where op.item.fields[name] == nil {
            if s.fields[name] != nil { return false }
        }
        return true
    }

    /// "Version = base version" (sync.md §5.5 note): `ms_version` when both copies have one,
    /// else `ms_updatedAt` and the user fields.
    public static func sameVersion(_ base: Item?, _ s: Item) -> Bool {
        guard let base else { return false }
        if let a = base.system.version, let b = s.system.version { return a == b }
        return base.system.updatedAt == s.system.updatedAt && base.sameUserFields(as: s)
    }

    /// The fields two independent creations set differently (merge on an empty base).
    public static func insertClash(_ client: Item, _ server: Item) -> [String] {
        if case .clash(let fields) = ThreeWayMerge.merge(base: [:], client: client.fields, server: server.fields) {
            return fields
        }
        return []
    }
}
