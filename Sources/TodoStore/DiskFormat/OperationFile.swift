import TodoModel

/// An operation file (`operations/<sequence>.<kind>.<table>.<enc>.json`): one pending operation,
/// holding exactly what the push will send.
public struct OperationFile: DiskRecord, Sendable {
    public static let format = 1
    public var value: PendingOperation

    public init(_ value: PendingOperation) { self.value = value }

    public var json: JSONValue {
        let op = value
        var o: [String: JSONValue] = [
            "format": .number(Double(Self.format)),
            "sequence": .number(Double(op.sequence)),
            "table": .string(op.table),
            "id": .string(op.id),
            "kind": .string(op.kind.rawValue),
            "item": ItemCopyFormat.json(op.item),
            "base": op.base.map(ItemCopyFormat.json) ?? .null,
            "attempted": .bool(op.attempted),
            "queuedAt": .string(op.queuedAt),
        ]
        if let attemptedAt = op.attemptedAt { o["attemptedAt"] = .string(attemptedAt) }
        if op.restore { o["restore"] = .bool(true) }
        return .object(o)
    }

    public init(current r: RecordReader) throws(RecordError) {
        let sequence = try r.int("sequence")
        guard sequence >= 1 else { throw RecordError("\"sequence\" is \(sequence); it must be at least 1") }
        let kind = try r.oneOf("kind", PendingOperation.Kind.self, expected: "insert, update or delete")
        let item: Item
        do { item = try ItemCopyFormat.item(.object(try r.object("item"))) } catch { throw RecordError("\"item\": \(error.message)") }
        guard item.system.isEmpty else { throw RecordError("\"item\" must not hold ms_ members") }
        let base = try ItemCopyFormat.optionalItem(r, "base")
        let id = try r.string("id")
        guard ItemID.same(item.id, id) else { throw RecordError("\"item\".\"id\" is \"\(item.id)\" but \"id\" is \"\(id)\"") }
        value = PendingOperation(sequence: sequence, table: try r.string("table"), id: id, kind: kind, item: item, base: base,
                                 attempted: try r.bool("attempted"), attemptedAt: try r.optionalString("attemptedAt"),
                                 restore: try r.bool("restore", default: false), queuedAt: try r.string("queuedAt"))
    }

    /// Format 1 is the first.
    public static func migrate(_ members: [String: JSONValue], from format: Int) throws(RecordError) -> [String: JSONValue] {
        throw FormatVersion.noOlderFormat(format, current: Self.format)
    }
}
