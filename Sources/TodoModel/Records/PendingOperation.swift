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

    public var json: JSONValue {
        var o: [String: JSONValue] = [
            "format": 1,
            "sequence": .number(Double(sequence)),
            "table": .string(table),
            "id": .string(id),
            "kind": .string(kind.rawValue),
            "item": item.json,
            "base": base?.json ?? .null,
            "attempted": .bool(attempted),
            "queuedAt": .string(queuedAt),
        ]
        if let attemptedAt { o["attemptedAt"] = .string(attemptedAt) }
        if restore { o["restore"] = .bool(true) }
        return .object(o)
    }

    public init(json: JSONValue) throws(RecordError) {
        let r = try RecordReader(json)
        try r.checkFormat()
        let sequence = try r.int("sequence")
        guard sequence >= 1 else { throw RecordError("\"sequence\" is \(sequence); it must be at least 1") }
        let kind = try r.oneOf("kind", Kind.self, expected: "insert, update or delete")
        let item: Item
        do { item = try Item(json: .object(try r.object("item"))) } catch { throw RecordError("\"item\": \(error.message)") }
        guard item.system.isEmpty else { throw RecordError("\"item\" must not hold ms_ members") }
        var base: Item? = nil
        if let b = try r.optionalObject("base") {
            do { base = try Item(json: .object(b)) } catch { throw RecordError("\"base\": \(error.message)") }
        }
        let id = try r.string("id")
        guard ItemID.same(item.id, id) else { throw RecordError("\"item\".\"id\" is \"\(item.id)\" but \"id\" is \"\(id)\"") }
        self.init(sequence: sequence, table: try r.string("table"), id: id, kind: kind, item: item, base: base,
                  attempted: try r.bool("attempted"), attemptedAt: try r.optionalString("attemptedAt"),
                  restore: try r.bool("restore", default: false), queuedAt: try r.string("queuedAt"))
    }

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

    public var json: JSONValue { ["kind": .string(kind.rawValue), "sequence": .number(Double(sequence))] }

    public init?(json: JSONValue) throws(RecordError) {
        if json.isNull { return nil }
        let r = try RecordReader(json)
        self.init(kind: try r.oneOf("kind", PendingOperation.Kind.self, expected: "insert, update or delete"),
                  sequence: try r.int("sequence"))
    }
}
