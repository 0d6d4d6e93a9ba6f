import TodoModel

/// A conflict file (`conflicts/<table>.<enc>.json`): one open conflict, with the three copies and
/// the `resolved` slot the user may fill in by hand.
public struct ConflictFile: DiskRecord, Sendable {
    public static let format = 1
    public var value: Conflict

    public init(_ value: Conflict) { self.value = value }

    public var json: JSONValue {
        let c = value
        return [
            "format": .number(Double(Self.format)), "table": .string(c.table), "id": .string(c.id),
            "reason": .string(c.reason.rawValue), "operation": OperationReferenceFormat.json(c.operation),
            "status": c.status.map { .number(Double($0)) } ?? .null,
            "detectedBy": .string(c.detectedBy.rawValue), "detectedAt": .string(c.detectedAt),
            "message": c.message.map { .string($0) } ?? .null, "base": c.base.map(ItemCopyFormat.json) ?? .null,
            "client": c.client.map(ItemCopyFormat.json) ?? .null, "server": c.server.map(ItemCopyFormat.json) ?? .null,
            "fields": .array(c.fields.sorted().map { .string($0) }), "resolved": c.resolved,
        ]
    }

    public init(current r: RecordReader) throws(RecordError) {
        guard let operation = try OperationReferenceFormat.reference(r.object["operation"] ?? .null) else {
            throw RecordError("\"operation\" is missing")
        }
        let resolved = r.object["resolved"] ?? .null
        switch resolved {
        case .null, .object: break
        case .string("delete"): break
        default: throw RecordError("\"resolved\" must be null, an object, or \"delete\"; found \(resolved.compactText)")
        }
        value = Conflict(table: try r.string("table"), id: try r.string("id"),
                         reason: try r.oneOf("reason", Conflict.Reason.self, expected: "conflict or rejected"),
                         operation: operation, status: try r.optionalInt("status"),
                         detectedBy: try r.oneOf("detectedBy", Conflict.Detector.self, expected: "push or pull"),
                         detectedAt: try r.string("detectedAt"), message: try r.optionalString("message"),
                         base: try ItemCopyFormat.optionalItem(r, "base"), client: try ItemCopyFormat.optionalItem(r, "client"),
                         server: try ItemCopyFormat.optionalItem(r, "server"),
                         fields: (r.object["fields"]?.arrayValue ?? []).compactMap(\.stringValue), resolved: resolved)
    }

    /// Format 1 is the first.
    public static func migrate(_ members: [String: JSONValue], from format: Int) throws(RecordError) -> [String: JSONValue] {
        throw FormatVersion.noOlderFormat(format, current: Self.format)
    }
}
