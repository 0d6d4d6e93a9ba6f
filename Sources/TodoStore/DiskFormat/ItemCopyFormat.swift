import TodoModel

/// A copy of an item inside a file: `id`, the user fields, and the server's system properties as
/// `ms_` members. The shape of item files (with `ms_written`, see `ItemFile`) and of the copies
/// that operations, conflicts, receipts and undo records hold.
public enum ItemCopyFormat {
    public static func json(_ item: Item) -> JSONValue { .object(members(item)) }

    /// The members, for a caller that adds its own (`ItemFile`): one dictionary, no copy.
    static func members(_ item: Item, extra: Int = 0) -> [String: JSONValue] {
        var o = item.fields
        o.reserveCapacity(item.fields.count + 5 + extra)
        o["id"] = .string(item.id)
        if let v = item.system.createdAt { o["ms_createdAt"] = .string(v) }
        if let v = item.system.updatedAt { o["ms_updatedAt"] = .string(v) }
        if let v = item.system.version { o["ms_version"] = .string(v) }
        if let deleted = item.system.deleted { o["ms_deleted"] = .bool(deleted) }
        return o
    }

    /// Reads a stored item or server copy. Rejects what the store never writes: null fields,
    /// nested values, unknown `ms_` members, invalid field names.
    public static func item(_ json: JSONValue) throws(RecordError) -> Item {
        let reader = try RecordReader(json)
        let id = try reader.string("id")
        var fields = [String: JSONValue](minimumCapacity: reader.object.count)
        var system = SystemProperties()
        for (key, value) in reader.object where key != "id" {
            if key.lowercased().hasPrefix("ms_") {
                switch key {
                case "ms_createdAt": system.createdAt = try systemText(key, value)
                case "ms_updatedAt": system.updatedAt = try systemText(key, value)
                case "ms_version": system.version = try systemText(key, value)
                case "ms_deleted": system.deleted = try reader.bool(key)
                case ItemFile.writtenMember: continue  // an item file's record of what todo wrote; `ItemFile` reads it
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
        return Item(id: id, fields: fields, system: system)
    }

    /// The copy in `member` of `record`, or nil when it is null or absent; errors name the member.
    static func optionalItem(_ record: RecordReader, _ member: String) throws(RecordError) -> Item? {
        guard let o = try record.optionalObject(member) else { return nil }
        do { return try item(.object(o)) } catch { throw RecordError("\"\(member)\": \(error.message)") }
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

/// `{"kind", "sequence"}`: how conflicts and receipts point at an operation.
public enum OperationReferenceFormat {
    public static func json(_ reference: OperationReference) -> JSONValue {
        ["kind": .string(reference.kind.rawValue), "sequence": .number(Double(reference.sequence))]
    }

    /// Nil for `null`.
    public static func reference(_ json: JSONValue) throws(RecordError) -> OperationReference? {
        if json.isNull { return nil }
        let r = try RecordReader(json)
        return OperationReference(kind: try r.oneOf("kind", PendingOperation.Kind.self, expected: "insert, update or delete"),
                                  sequence: try r.int("sequence"))
    }
}
