/// One queued local change (sync.md §2.2). The file holds exactly what the push will send.
public struct PendingOperation: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case insert, update, delete
    }

    public var sequence: Int
    public var table: String
    public var id: String
    public var kind: Kind
    /// Insert/update: the copy to send. Delete: a snapshot of the deleted item. Never system properties.
    public var item: Item
    /// Update/delete: the server copy the change started from (supplies If-Match). Nil for inserts.
    public var base: Item?
    /// The in-flight marker: a request may have reached the server (sync.md §3.5).
    public var attempted: Bool
    public var attemptedAt: String?
    /// The server copy is soft-deleted: the push undeletes before it patches (sync.md §8.5).
    public var restore: Bool
    public var queuedAt: String

    public init(sequence: Int, table: String, id: String, kind: Kind, item: Item, base: Item?,
                attempted: Bool = false, attemptedAt: String? = nil, restore: Bool = false, queuedAt: String) {
        self.sequence = sequence
        self.table = table
        self.id = id
        self.kind = kind
        self.item = item.userCopy
        self.base = base
        self.attempted = attempted
        self.attemptedAt = attemptedAt
        self.restore = restore
        self.queuedAt = queuedAt
    }

    /// Sealed: may already have reached the server, so its content is frozen.
    public var isSealed: Bool { attempted }

    public var reference: OperationReference { OperationReference(kind: kind, sequence: sequence) }
}

/// `{"kind", "sequence"}`: how conflicts and receipts point at an operation.
public struct OperationReference: Sendable, Equatable {
    public var kind: PendingOperation.Kind
    public var sequence: Int

    public init(kind: PendingOperation.Kind, sequence: Int) {
        self.kind = kind
        self.sequence = sequence
    }
}
