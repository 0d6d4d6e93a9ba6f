/// The user's hand-written resolution (sync.md §8.3): reading `resolved`, and the proposal that
/// `todo resolve --edit` opens in the editor.
public enum ResolvedCopy {
    /// The user fields of a `resolved` object, validated like a local change (§10.3): `id` may be
    /// given and must name the item (ignoring case); `ms_` and system members are ignored; `null`
    /// removes a field; `text` must be a string and `complete` a boolean.
    ///
    /// Every field in `required` (those of the conflict's base, client and server copies) must be
    /// written, with a value or `null`. Why: a resolution is the whole wanted item, so a field left
    /// out is removed everywhere, and a field simply forgotten would be lost without a word.
    public static func fields(_ resolved: JSONValue, id: String, required: Set<String> = []) throws(ResolutionFailure) -> [String: JSONValue] {
        func invalid(_ reason: String) -> ResolutionFailure { .invalidResolution(id: id, reason: reason) }
        guard case .object(let object) = resolved else {
            throw invalid("\"resolved\" must be null, an object (the wanted item), or \"delete\"; found \(resolved.compactText)")
        }
        var fields: [String: JSONValue] = [:]
        for name in object.keys.sorted() {
            let value = object[name]!
            if name == "id" {
                guard let given = value.stringValue, ItemID.same(given, id) else {
                    throw invalid("\"id\" is \(value.compactText); it must be the item's id, \"\(id)\"")
                }
                continue
            }
            if isSystemMember(name) { continue }
            if let problem = FieldName.problem(name) { throw invalid(problem) }
            switch value {
            case .null:
                continue
            case .array, .object:
                throw invalid("field \"\(name)\" is \(value.typeName); values are strings, numbers or booleans")
            default:
                break
            }
            if name == "text", value.stringValue == nil { throw invalid("\"text\" must be a string, not \(value.typeName)") }
            if name == "complete", value.boolValue == nil { throw invalid("\"complete\" must be true or false, not \(value.typeName)") }
            fields[name] = value
        }
        let missing = required.subtracting(object.keys).sorted()
        if !missing.isEmpty { throw .incompleteResolution(id: id, fields: missing) }
        return fields
    }

    /// The user fields any of the conflict's copies has: what a resolution must decide on.
    public static func fieldNames(_ conflict: Conflict) -> Set<String> {
        var names = Set<String>()
        for case let copy? in [conflict.base, conflict.client, conflict.server] { names.formUnion(copy.fields.keys) }
        return names
    }

    /// `ms_…` (the store's names) and the system properties under their G1 and G2 names.
    static func isSystemMember(_ name: String) -> Bool {
        var lower = name.lowercased()
        if lower.hasPrefix("ms_") { return true }
        if lower.hasPrefix("__") { lower.removeFirst(2) }
        return ["createdat", "updatedat", "version", "deleted"].contains(lower)
    }

    /// What `--edit` proposes (§8.3.5), the first that applies: the server copy when the client
    /// deleted the item; the merge when the server copy is live, each clashing field taking the
    /// client's value; else the client copy. `id` and user fields, and `null` for every field of
    /// the conflict's copies that the proposal leaves out, so it is a complete resolution.
    public static func proposal(_ conflict: Conflict, operation: PendingOperation?, item: Item?) -> JSONValue {
        let server = conflict.server
        guard let client = item else {
            return copy(server ?? operation?.item ?? Item(id: conflict.id), conflict)
        }
        guard let s = server, !s.isDeleted else { return copy(client, conflict) }
        let base = operation?.kind == .insert ? [:] : (operation?.base ?? conflict.base)?.fields ?? [:]
        var merged: [String: JSONValue] = [:]
        for name in Set(base.keys).union(client.fields.keys).union(s.fields.keys) {
            let b = base[name] ?? .null, c = client.fields[name] ?? .null, v = s.fields[name] ?? .null
            let value = (c == b && v != b) ? v : c  // the server's value only where the client left the base's
            if !value.isNull { merged[name] = value }
        }
        return copy(Item(id: client.id, fields: merged), conflict)
    }

    private static func copy(_ item: Item, _ conflict: Conflict) -> JSONValue {
        var object = item.fields
        for name in fieldNames(conflict) where object[name] == nil { object[name] = .null }
        object["id"] = .string(item.id)
        return .object(object)
    }
}
