/// One item's local state: its copy and its pending operations (queue order).
public struct ItemState: Sendable, Equatable {
    public var item: Item?
    public var operations: [PendingOperation]

    public init(item: Item?, operations: [PendingOperation]) {
        self.item = item
        self.operations = operations.sorted { $0.sequence < $1.sequence }
    }

    public var json: JSONValue {
        ["item": item?.json ?? .null, "operations": .array(operations.map(\.json))]
    }

    public init(json: JSONValue) throws(RecordError) {
        let r = try RecordReader(json)
        var item: Item? = nil
        if let o = try r.optionalObject("item") { item = try Item(json: .object(o)) }
        guard let list = r.object["operations"]?.arrayValue else { throw RecordError("\"operations\" must be an array") }
        var ops: [PendingOperation] = []
        for op in list { ops.append(try PendingOperation(json: op)) }
        self.init(item: item, operations: ops)
    }
}

/// What one local command (`add`, `edit`, `done`, `undone`, `rm`) did to one item: the item's
/// state before and after, kept so that `todo undo` can put the state before back.
///
/// Why whole states and not the operation: with the collapse rules, a change folds into the
/// pending operation before it (`add` then `edit` leaves one insert), so the queue alone cannot
/// say what the item was before the last command. Like jj's operation log, the record keeps the
/// "before" view; unlike it, only while the change is local: `after` must still be the item's
/// state, so anything that changed the item since (a push, a pull, a resolve, a hand edit) makes
/// the record stale, and undo refuses rather than overwrite it.
public struct UndoRecord: Sendable, Equatable {
    /// The command as typed, without `todo` (`edit 3f9c --text milk`).
    public var command: String
    public var at: String
    public var table: String
    public var id: String
    public var before: ItemState
    public var after: ItemState

    public init(command: String, at: String, table: String, id: String, before: ItemState, after: ItemState) {
        self.command = command
        self.at = at
        self.table = table
        self.id = id
        self.before = before
        self.after = after
    }

    public var json: JSONValue {
        ["command": .string(command), "at": .string(at), "table": .string(table), "id": .string(id),
         "before": before.json, "after": after.json]
    }

    public init(json: JSONValue) throws(RecordError) {
        let r = try RecordReader(json)
        let before: ItemState, after: ItemState
        do { before = try ItemState(json: .object(try r.object("before"))) } catch { throw RecordError("\"before\": \(error.message)") }
        do { after = try ItemState(json: .object(try r.object("after"))) } catch { throw RecordError("\"after\": \(error.message)") }
        self.init(command: try r.string("command"), at: try r.string("at"), table: try r.string("table"),
                  id: try r.string("id"), before: before, after: after)
    }
}

/// `.todo/undo.json`: the last local changes, oldest first, at most `limit` of them.
public struct UndoLog: Sendable, Equatable {
    /// Enough for a run of typos; the file stays small (each record holds one item's copies).
    public static let limit = 20
    public var records: [UndoRecord]

    public init(records: [UndoRecord] = []) { self.records = records }

    /// The log with `record` as its newest entry, dropping the oldest beyond `limit`.
    public func adding(_ record: UndoRecord) -> UndoLog {
        UndoLog(records: Array((records + [record]).suffix(Self.limit)))
    }

    public var json: JSONValue { ["format": 1, "changes": .array(records.map(\.json))] }

    public init(json: JSONValue) throws(RecordError) {
        let r = try RecordReader(json)
        try r.checkFormat()
        guard let list = r.object["changes"]?.arrayValue else { throw RecordError("\"changes\" must be an array") }
        var records: [UndoRecord] = []
        for (n, entry) in list.enumerated() {
            do { records.append(try UndoRecord(json: entry)) } catch { throw RecordError("change \(n + 1): \(error.message)") }
        }
        self.init(records: records)
    }
}
