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

    /// What happened on each side (sync.md §7.3), derived, never stored; `TodoCLI` names it
    /// ("changed on both sides").
    public enum Kind: Sendable, Equatable {
        case rejected(status: Int?, message: String?)
        case addedOnBothSides, addedHereDeletedThere, changedOnBothSides, changedHereDeletedThere, deletedHereChangedThere
    }

    public var kind: Kind {
        if reason == .rejected { return .rejected(status: status, message: message) }
        let serverLive = server.map { !$0.isDeleted } ?? false
        switch operation.kind {
        case .insert: return serverLive ? .addedOnBothSides : .addedHereDeletedThere
        case .update: return serverLive ? .changedOnBothSides : .changedHereDeletedThere
        case .delete: return .deletedHereChangedThere
        }
    }
}
