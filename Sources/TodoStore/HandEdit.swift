import Synchronization
import TodoBasics
import TodoModel

/// A store file changed outside todo since todo wrote it (issue 15 item 8).
///
/// The store is plain files on purpose, so people edit them. An edit todo did not make is never
/// taken silently (a push or pull would overwrite it, or send something the item does not show)
/// nor ignored: every command that reads the file reports it, and `todo edit ID --adopt` records
/// it as a change, or `--discard` puts back what todo wrote. How an edit is seen: an item file
/// keeps the user fields as todo wrote them in `ms_written` (`ItemFileCodec`), so
/// - the item file was edited when its fields differ from `ms_written`;
/// - the item's last operation was edited when the copy it sends (an insert's or update's `item`)
///   differs from `ms_written`: todo always writes the two together, equal.
/// The rest of an operation file is the operation's own word (what `cat` shows is what the push
/// sends: its base and If-Match, its marker), so an edit there is simply what the push does.
/// Files written before `ms_written` existed are taken as they are.
public struct HandEdit: Sendable, Equatable {
    public enum Subject: Sendable, Equatable {
        /// The item file's user fields differ from those todo wrote.
        case item(changes: [FieldChange])
        /// The item's last operation sends other fields than the item as todo wrote it.
        case operation(sequence: Int, changes: [FieldChange])
    }

    public var table: String
    public var id: String
    /// Relative to `.todo/`.
    public var path: String
    public var subject: Subject

    public init(table: String, id: String, path: String, subject: Subject) {
        self.table = table
        self.id = id
        self.path = path
        self.subject = subject
    }

    /// "text changed, note removed" or "operation #4".
    public var summary: String {
        switch subject {
        case .item(let changes): return changes.map(\.summary).joined(separator: ", ")
        case .operation(let sequence, let changes): return "operation #\(sequence) sends " + changes.map(\.summary).joined(separator: ", ")
        }
    }
}

/// One user field's hand edit: its value as todo wrote it, and now (nil: absent).
public struct FieldChange: Sendable, Equatable {
    public var name: String
    public var before: JSONValue?
    public var after: JSONValue?

    public var summary: String {
        switch (before, after) {
        case (nil, _): return "\(name) added"
        case (_, nil): return "\(name) removed"
        default: return "\(name) changed"
        }
    }

    /// The fields whose values differ, sorted by name.
    public static func between(_ before: [String: JSONValue], _ after: [String: JSONValue]) -> [FieldChange] {
        Set(before.keys).union(after.keys).sorted().compactMap { name in
            before[name] == after[name] ? nil : FieldChange(name: name, before: before[name], after: after[name])
        }
    }
}

/// Hand edits met by a command that shows files as they are and reports them afterwards (the
/// reading commands, doctor, and `edit --adopt`). A store without one refuses hand-edited files
/// instead (`StoreError.editedByHand`): that is what push, pull and every change get.
public final class HandEditLog: Sendable {
    private let edits = Mutex<[String: HandEdit]>([:])

    public init() {}

    func record(_ edit: HandEdit) { edits.withLock { $0[edit.path] = edit } }

    /// Every edit met, by path.
    public var all: [HandEdit] { edits.withLock { $0.values.sorted { $0.path < $1.path } } }
}

extension Store {
    /// A hand edit found by a read: refused, or noted in `handEditLog`.
    func met(_ edit: HandEdit) throws(StoreError) {
        guard let log = handEditLog else { throw .editedByHand(edit) }
        log.record(edit)
    }
}
