/// The server's system properties of an item, under the replica's `ms_` names (sync.md §2.1).
/// Text is kept exactly as the server sent it.
public struct SystemProperties: Sendable, Equatable {
    public var createdAt: String?
    public var updatedAt: String?
    public var version: String?
    /// Only in server copies (bases, conflicts); never in an item file.
    public var deleted: Bool?

    public init(createdAt: String? = nil, updatedAt: String? = nil, version: String? = nil, deleted: Bool? = nil) {
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.version = version
        self.deleted = deleted
    }

    public static let none = SystemProperties()
    public var isEmpty: Bool { createdAt == nil && updatedAt == nil && version == nil && deleted == nil }
}

/// One record of a table: its id, its user fields (never `null`), and the last server copy's
/// system properties. User fields and system properties are kept apart so a system property can
/// never leak into a request body.
public struct Item: Sendable, Equatable {
    public var id: String
    public var fields: [String: JSONValue]
    public var system: SystemProperties

    public init(id: String, fields: [String: JSONValue] = [:], system: SystemProperties = .none) {
        self.id = id
        // Rebuilding the dictionary only when there is a null to drop: a queue read makes three items per operation.
        self.fields = fields.values.contains(where: \.isNull) ? fields.filter { !$0.value.isNull } : fields
        self.system = system
    }

    /// The same item without system properties: what an operation carries and sends.
    public var userCopy: Item { Item(id: id, fields: fields) }

    public var text: String? { fields["text"]?.stringValue }
    public var isComplete: Bool { fields["complete"]?.boolValue ?? false }
    public var isDeleted: Bool { system.deleted == true }

    /// Two copies are equal when every user field is equal (sync.md §1.3): id case and system
    /// properties are ignored, and null equals absent.
    public func sameUserFields(as other: Item) -> Bool {
        fields == other.fields
    }
}
