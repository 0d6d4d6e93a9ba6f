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
}
