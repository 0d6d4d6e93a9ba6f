import TodoModel

/// `undo.json`: the last local changes `todo undo` can take back, oldest first. Each change holds
/// the item's states before and after, as `{"item", "operations"}` with whole operation records
/// (each with its own `format`, read as operation files are).
public struct UndoFile: DiskRecord, Sendable {
    public static let format = 1
    public var value: UndoLog

    public init(_ value: UndoLog) { self.value = value }

    public var json: JSONValue {
        ["format": .number(Double(Self.format)), "changes": .array(value.records.map(Self.json))]
    }

    public init(current r: RecordReader) throws(RecordError) {
        guard let list = r.object["changes"]?.arrayValue else { throw RecordError("\"changes\" must be an array") }
        var records: [UndoRecord] = []
        for (n, entry) in list.enumerated() {
            do { records.append(try Self.record(entry)) } catch { throw RecordError("change \(n + 1): \(error.message)") }
        }
        value = UndoLog(records: records)
    }

    /// Format 1 is the first.
    public static func migrate(_ members: [String: JSONValue], from format: Int) throws(RecordError) -> [String: JSONValue] {
        throw FormatVersion.noOlderFormat(format, current: Self.format)
    }

    // MARK: Parts

    static func json(_ record: UndoRecord) -> JSONValue {
        ["command": .string(record.command), "at": .string(record.at), "table": .string(record.table),
         "id": .string(record.id), "before": json(record.before), "after": json(record.after)]
    }

    static func record(_ json: JSONValue) throws(RecordError) -> UndoRecord {
        let r = try RecordReader(json)
        let before: ItemState, after: ItemState
        do { before = try state(.object(try r.object("before"))) } catch { throw RecordError("\"before\": \(error.message)") }
        do { after = try state(.object(try r.object("after"))) } catch { throw RecordError("\"after\": \(error.message)") }
        return UndoRecord(command: try r.string("command"), at: try r.string("at"), table: try r.string("table"),
                          id: try r.string("id"), before: before, after: after)
    }

    static func json(_ state: ItemState) -> JSONValue {
        ["item": state.item.map(ItemCopyFormat.json) ?? .null,
         "operations": .array(state.operations.map { OperationFile($0).json })]
    }

    static func state(_ json: JSONValue) throws(RecordError) -> ItemState {
        let r = try RecordReader(json)
        var item: Item? = nil
        if let o = try r.optionalObject("item") { item = try ItemCopyFormat.item(.object(o)) }
        guard let list = r.object["operations"]?.arrayValue else { throw RecordError("\"operations\" must be an array") }
        var ops: [PendingOperation] = []
        for op in list { ops.append(try OperationFile(json: op).value) }
        return ItemState(item: item, operations: ops)
    }
}
