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

    // MARK: Stored form

    /// The stored JSON form: `id`, user fields, `ms_` members.
    public var json: JSONValue {
        var o = fields
        o["id"] = .string(id)
        if let v = system.createdAt { o["ms_createdAt"] = .string(v) }
        if let v = system.updatedAt { o["ms_updatedAt"] = .string(v) }
        if let v = system.version { o["ms_version"] = .string(v) }
        if let deleted = system.deleted { o["ms_deleted"] = .bool(deleted) }
        return .object(o)
    }

    /// Reads a stored item or server copy. Rejects what the store never writes: null fields,
    /// nested values, unknown `ms_` members, invalid field names.
    public init(json: JSONValue) throws(RecordError) {
        let reader = try RecordReader(json)
        let id = try reader.string("id")
        var fields = [String: JSONValue](minimumCapacity: reader.object.count)
        var system = SystemProperties()
        for (key, value) in reader.object where key != "id" {
            if key.lowercased().hasPrefix("ms_") {
                switch key {
                case "ms_createdAt": system.createdAt = try Self.systemText(key, value)
                case "ms_updatedAt": system.updatedAt = try Self.systemText(key, value)
                case "ms_version": system.version = try Self.systemText(key, value)
                case "ms_deleted": system.deleted = try reader.bool(key)
                case "ms_written": continue  // an item file's record of what todo wrote; the store reads it
                default: throw RecordError("unknown system member \"\(key)\"")
                }
                continue
            }
            if let problem = FieldName.problem(key) { throw RecordError(problem) }
            switch value {
            case .null: continue
            case .array, .object: throw RecordError("field \"\(key)\" is \(value.typeName); values are strings, numbers or booleans")
            default: fields[key] = value
            }
        }
        self.init(id: id, fields: fields, system: system)
    }

    /// A system property as the server sent it: text. `null` is refused too (todo leaves an
    /// unknown property out): a hand-written null `ms_version` would drop the push's If-Match.
    private static func systemText(_ key: String, _ value: JSONValue) throws(RecordError) -> String {
        guard case .string(let s) = value else {
            if value.isNull { throw RecordError("\"\(key)\" is null; todo writes system properties as text as the server sent them, or leaves them out") }
            throw RecordError("\"\(key)\" must be text as the server sent it, found \(value.compactText)")
        }
        return s
    }
}
