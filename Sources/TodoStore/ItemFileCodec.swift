import TodoBasics
import TodoModel

/// The item file's `ms_written`: base64 of the compact JSON of the user fields, as todo last
/// wrote them. Comparing it with the fields shows a hand edit, and which fields it changed; and
/// it is exactly the copy that `edit --adopt` bases the change on (for an item with no pending
/// operation, the last server copy, which nothing else records) and that `--discard` puts back.
/// Base64, not plain JSON, so that a search and replace over the file never changes both.
enum ItemFileCodec {
    static let member = "ms_written"

    /// The item as its file holds it.
    static func json(_ item: Item) -> JSONValue {
        var object = item.json.objectValue ?? [:]
        object[member] = .string(Base64.encode(JSONValue.object(item.fields).compactBytes()))
        return .object(object)
    }

    /// The fields recorded in `ms_written`, or nil when the file has none (written before it existed).
    static func written(_ object: [String: JSONValue]) throws(RecordError) -> [String: JSONValue]? {
        guard let value = object[member] else { return nil }
        guard let text = value.stringValue, let bytes = Base64.decode(text),
              let fields = (try? JSONValue.parse(bytes))?.objectValue,
              fields.values.allSatisfy({ !$0.isNull && $0.objectValue == nil && $0.arrayValue == nil })
        else {
            throw RecordError("\"\(member)\" is not what todo writes (base64 of the fields as todo wrote them); remove the member to take the file as it is")
        }
        return fields
    }
}
