import TodoBasics
import TodoModel

/// Everything that can stop a store operation, each with what went wrong (`TodoCLI` adds what to do).
public enum StoreError: Error, Equatable, Sendable {
    /// No `.todo` found walking up from `start`.
    case notAReplica(start: String)
    /// `todo init` where a replica already exists.
    case alreadyInitialized(path: String)
    /// A `.todo` folder without `format.json`: a damaged replica (or an interrupted `todo init`).
    /// It is never reset or written; `holds` says what it has, when that was looked at.
    case incomplete(path: String, holds: String?)
    /// Another process holds the lock.
    case locked(path: String, pid: Int32?, command: String?)
    /// A file that cannot be read as what it should be. `path` is shown as given.
    case corrupt(path: String, reason: String)
    /// An operation file whose name parses but is not the one todo gives it (`1.insert…` for
    /// `0000000001.insert…`): every command reads operations by todo's name, so such a file would
    /// be counted but never sent. Refused, with the name to give it back, rather than skipped.
    case misnamedOperation(path: String, expected: String)
    /// The file system refused.
    case io(FileSystemError)
    /// A commit happened (its journal is in place) but writing its files did not finish. Nothing is
    /// lost: the journal holds the whole change, readers show it, and the next writer that can
    /// write the files finishes it. Why a case of its own: after the commit point a failure must
    /// not be reported as "nothing happened" (a retried `add` would make a duplicate).
    case unfinished(FileSystemError)
    /// A file changed outside todo, which todo has not recorded (issue 15 item 8). Changes, push
    /// and pull refuse it; the reading commands show it and report it instead.
    case editedByHand(HandEdit)
    /// A reader could not get a consistent view while a writer kept changing the store.
    case busy(path: String)

    public var message: String {
        switch self {
        case .notAReplica(let start):
            return "not a todo replica: no .todo directory in '\(start)' or any parent"
        case .alreadyInitialized(let path):
            return "a todo replica already exists at '\(path)'"
        case .incomplete(let path, let holds):
            return "'\(path)' is not a complete replica: \(StoreLayout.formatFile) is missing" + (holds.map { " (it holds \($0))" } ?? "")
        case .locked(let path, let pid, let command):
            let who = pid.map { "pid \($0)\(command.map { ", '\($0)'" } ?? "")" } ?? "unknown pid"
            return "another todo process (\(who)) holds the store lock '\(path)'"
        case .corrupt(let path, let reason):
            return "\(path): \(reason)"
        case .misnamedOperation(let path, _):
            return "\(path): not named as todo names its operations"
        case .io(let e):
            return e.description
        case .unfinished(let e):
            return "a committed change is not written to its files yet: \(e.description)"
        case .busy(let path):
            return "the store '\(path)' kept changing while it was read"
        case .editedByHand(let edit):
            return Self.editedByHandMessage(edit)
        }
    }

    /// What `.editedByHand` says; the reading commands print it as a warning.
    public static func editedByHandMessage(_ edit: HandEdit) -> String {
        let path = StoreLayout.directoryName + "/" + edit.path
        switch edit.subject {
        case .item: return "\(path) was edited by hand (\(edit.summary)), and todo has not recorded it as a change"
        case .operation: return "\(path) was edited by hand (\(edit.summary), unlike the item), and todo has not recorded it"
        }
    }
}
