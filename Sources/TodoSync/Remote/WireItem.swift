import TableProtocol
import TodoModel

/// Turns server copies into the replica's form and items into request bodies (protocol §10.3,
/// §10.7). The only place that knows both the wire names and the store names.
public enum WireItem {
    /// A server copy in replica form, and the member names that were dropped (for one warning).
    public struct Normalized: Sendable {
        public var item: Item
        public var dropped: [String]
    }

    /// Normalises one row: system properties under `ms_` names (either wire spelling, any case),
    /// `null` members dropped, other `__`/`ms_` members and invalid names dropped with a warning,
    /// nested values dropped with a warning. `etagVersion` fills a missing version (§10.4).
    /// Nil when the row has no usable id.
    public static func normalize(_ value: JSONValue, etagVersion: String? = nil) -> Normalized? {
        guard let object = value.objectValue, let id = object["id"]?.stringValue, ItemID.problem(id) == nil else {
            return nil
        }
        var fields = [String: JSONValue](minimumCapacity: object.count)  // no rehash as it grows
        var system = SystemProperties()
        var dropped: [String] = []
        for (name, member) in object where name != "id" {
            if member.isNull { continue }
            if let property = SystemProperty(anySpelling: name), isSystemSpelling(name) {
                switch property {
                case .createdAt: system.createdAt = member.stringValue
                case .updatedAt: system.updatedAt = member.stringValue
                case .version: system.version = member.stringValue
                case .deleted: system.deleted = member.boolValue == true
                }
                continue
            }
            switch member {
            case .array, .object:
                dropped.append(name)
            default:
                if FieldName.problem(name) == nil { fields[name] = member } else { dropped.append(name) }
            }
        }
        if system.version == nil { system.version = etagVersion }
        return Normalized(item: Item(id: id, fields: fields, system: system), dropped: dropped.sorted())
    }

    /// `createdAt` / `__createdAt` in any letter case, but not `ms_createdAt` or `x__createdAt`.
    private static func isSystemSpelling(_ name: String) -> Bool {
        let b = Array(name.utf8.prefix(3))
        return !(b.count == 3 && b[0] | 0x20 == UInt8(ascii: "m") && b[1] | 0x20 == UInt8(ascii: "s") && b[2] == UInt8(ascii: "_"))
    }

    /// The version carried by a strong `ETag` header: quotes removed, `\"` unescaped. A weak one
    /// (`W/…`) is never a version (protocol §10.4): Express sends a hash of the body as one.
    public static func version(fromETag etag: String?) -> String? {
        guard let etag else { return nil }
        // Read as UTF-8 bytes: a push reads one for every answer.
        var b = etag.utf8[...]
        while let f = b.first, f == 0x20 || f == 0x09 { b = b.dropFirst() }
        while let l = b.last, l == 0x20 || l == 0x09 { b = b.dropLast() }
        guard !b.isEmpty, !b.starts(with: "W/".utf8) else { return nil }
        if b.count >= 2, b.first == UInt8(ascii: "\""), b.last == UInt8(ascii: "\"") { b = b.dropFirst().dropLast() }
        let text = String(Substring(b))
        // Most versions hold no backslash; `replacing` costs a regex-engine call each.
        guard text.utf8.contains(UInt8(ascii: "\\")) else { return text }
        return text.replacing("\\\"", with: "\"").replacing("\\\\", with: "\\")
    }

    /// `If-Match` value for a version: quoted, with `"` and `\` escaped (protocol §10.3).
    public static func ifMatch(_ version: String) -> String {
        guard version.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") }) else { return "\"" + version + "\"" }
        return "\"" + version.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
    }

    /// Insert body: `id` plus every user field (the replica stores no nulls).
    public static func insertBody(_ item: Item) -> JSONValue {
        var o = item.fields
        o["id"] = .string(item.id)
        return .object(o)
    }

    /// Update body: the whole item, plus `null` for every user field of the base the item lacks,
    /// so a field removed here is cleared on the server too.
    public static func updateBody(_ item: Item, base: Item?) -> JSONValue {
        var o = item.fields
        for name in base?.fields.keys ?? [:].keys where item.fields[name] == nil { o[name] = .null }
        o["id"] = .string(item.id)
        return .object(o)
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }

}
