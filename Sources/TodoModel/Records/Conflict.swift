/// An open conflict: an operation the server did not accept as it was (sync.md §7.2). It is data,
/// not an error: the user settles it later with `todo resolve`.
public struct Conflict: Sendable, Equatable {
    public enum Reason: String, Sendable { case conflict, rejected }
    public enum Detector: String, Sendable { case push, pull }

    public var table: String
    public var id: String
    public var reason: Reason
    public var operation: OperationReference
    public var status: Int?
    public var detectedBy: Detector
    public var detectedAt: String
    public var message: String?
    public var base: Item?
    public var client: Item?
    public var server: Item?
    public var fields: [String]
    /// The manual resolution slot: nil, an object (the wanted item), or the string "delete".
    public var resolved: JSONValue

    public init(table: String, id: String, reason: Reason, operation: OperationReference, status: Int?,
                detectedBy: Detector, detectedAt: String, message: String?, base: Item?, client: Item?,
                server: Item?, fields: [String], resolved: JSONValue = .null) {
        self.table = table
        self.id = id
        self.reason = reason
        self.operation = operation
        self.status = status
        self.detectedBy = detectedBy
        self.detectedAt = detectedAt
        self.message = message
        self.base = base
        self.client = client
        self.server = server
        self.fields = fields
        self.resolved = resolved
    }

    /// The name `todo status` shows (sync.md §7.3); derived, never stored.
    public var kindDescription: String {
        if reason == .rejected {
            return "rejected by the server (\(status.map(String.init) ?? "no status"): \(message ?? "no message"))"
        }
        let serverLive = server.map { !$0.isDeleted } ?? false
        switch operation.kind {
        case .insert: return serverLive ? "added on both sides" : "added here, deleted there"
        case .update: return serverLive ? "changed on both sides" : "changed here, deleted there"
        case .delete: return "deleted here, changed there"
        }
    }

    public var json: JSONValue {
        [
            "format": 1, "table": .string(table), "id": .string(id), "reason": .string(reason.rawValue),
            "operation": operation.json, "status": status.map { .number(Double($0)) } ?? .null,
            "detectedBy": .string(detectedBy.rawValue), "detectedAt": .string(detectedAt),
            "message": message.map { .string($0) } ?? .null, "base": base?.json ?? .null,
            "client": client?.json ?? .null, "server": server?.json ?? .null,
            "fields": .array(fields.sorted().map { .string($0) }), "resolved": resolved,
        ]
    }

    public init(json: JSONValue) throws(RecordError) {
        let r = try RecordReader(json)
        try r.checkFormat()
        func item(_ key: String) throws(RecordError) -> Item? {
            guard let o = try r.optionalObject(key) else { return nil }
            do { return try Item(json: .object(o)) } catch { throw RecordError("\"\(key)\": \(error.message)") }
        }
        guard let operation = try OperationReference(json: r.object["operation"] ?? .null) else {
            throw RecordError("\"operation\" is missing")
        }
        let resolved = r.object["resolved"] ?? .null
        switch resolved {
        case .null, .object: break
        case .string("delete"): break
        default: throw RecordError("\"resolved\" must be null, an object, or \"delete\"; found \(resolved.compactText)")
        }
        self.init(table: try r.string("table"), id: try r.string("id"),
                  reason: try r.oneOf("reason", Reason.self, expected: "conflict or rejected"),
                  operation: operation, status: try r.optionalInt("status"),
                  detectedBy: try r.oneOf("detectedBy", Detector.self, expected: "push or pull"),
                  detectedAt: try r.string("detectedAt"), message: try r.optionalString("message"),
                  base: try item("base"), client: try item("client"), server: try item("server"),
                  fields: (r.object["fields"]?.arrayValue ?? []).compactMap(\.stringValue), resolved: resolved)
    }
}
