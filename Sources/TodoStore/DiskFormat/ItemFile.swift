import TodoBasics
import TodoModel

/// An item file (`tables/<table>/items/<enc>.json`) as read or to be written: the item, and the
/// user fields todo last wrote in it.
///
/// The shape is an item copy (`ItemCopyFormat`: `id`, user fields, `ms_` members) plus
/// `ms_written`: base64 of the compact JSON of the user fields, as todo last wrote them. Comparing
/// it with the fields shows a hand edit, and which fields it changed; and it is exactly the copy
/// that `edit --adopt` bases the change on (for an item with no pending operation, the last server
/// copy, which nothing else records) and that `--discard` puts back. Base64, not plain JSON, so
/// that a search and replace over the file never changes both.
///
/// No `"format"` member, unlike the other files: an item file is the record people read, edit and
/// hand to other tools, so it holds the item and nothing else; its format is the store's
/// (`format.json`). Its one older shape, without `ms_written` (written before it existed), is read
/// as it is, with `written` nil.
public struct ItemFile: Sendable, Equatable {
    static let writtenMember = "ms_written"

    /// Relative to `.todo/`.
    public var path: String
    public var item: Item
    /// From `ms_written`; nil in a file written before it existed (then no edit can be seen).
    public var written: [String: JSONValue]?

    public init(path: String, item: Item, written: [String: JSONValue]?) {
        self.path = path
        self.item = item
        self.written = written
    }

    /// The file todo writes for `item`: what it writes is the item's fields.
    public init(path: String, item: Item) {
        self.init(path: path, item: item, written: item.fields)
    }

    /// Reads an item file; errors name the member.
    public init(path: String, json: JSONValue) throws(RecordError) {
        let item = try ItemCopyFormat.item(json)
        self.init(path: path, item: item, written: try Self.written(json.objectValue ?? [:]))
    }

    public var json: JSONValue {
        var o = ItemCopyFormat.members(item, extra: 1)
        if let written { o[Self.writtenMember] = .string(Base64.encode(JSONValue.object(written).compactBytes())) }
        return .object(o)
    }

    /// The fields changed outside todo, or nil when there are none (or none can be seen).
    public var handChanges: [FieldChange]? {
        guard let written, written != item.fields else { return nil }
        return FieldChange.between(written, item.fields)
    }

    /// The item as todo last wrote it: what `--discard` puts back and `--adopt` starts from.
    public var asWritten: Item { Item(id: item.id, fields: written ?? item.fields, system: item.system) }

    /// The fields recorded in `ms_written`, or nil when the file has none (written before it existed).
    static func written(_ object: [String: JSONValue]) throws(RecordError) -> [String: JSONValue]? {
        guard let value = object[writtenMember] else { return nil }
        guard let text = value.stringValue, let bytes = Base64.decode(text),
              let fields = (try? JSONValue.parse(bytes))?.objectValue,
              fields.values.allSatisfy({ !$0.isNull && $0.objectValue == nil && $0.arrayValue == nil })
        else {
            throw RecordError("\"\(writtenMember)\" is not what todo writes (base64 of the fields as todo wrote them); remove the member to take the file as it is")
        }
        return fields
    }
}
