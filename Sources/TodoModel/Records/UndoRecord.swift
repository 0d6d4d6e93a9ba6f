/// One item's local state: its copy and its pending operations (queue order).
public struct ItemState: Sendable, Equatable {
    public var item: Item?
    public var operations: [PendingOperation]

    public init(item: Item?, operations: [PendingOperation]) {
        self.item = item
        self.operations = operations.sorted { $0.sequence < $1.sequence }
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
}
