import TodoStore

extension StoreError {
    /// What to do about it, for the `hint:` line.
    var hint: String {
        switch self {
        case .notAReplica:
            return "run 'todo init' to create one here, or set TODO_DIR to the replica's .todo directory"
        case .alreadyInitialized:
            return "use the existing replica, or remove its .todo directory first"
        case .incomplete(let path, _):
            return "nothing was changed; if its other files are intact, recreate \(path)/\(StoreLayout.formatFile) holding {\"format\": 1} "
                + "and run 'todo doctor' to check them; to start a new replica here instead, move \(path) away first"
        case .locked(_, let pid, _):
            let p = pid.map(String.init) ?? "<pid>"
            return "wait for it to finish; the lock is released when that process exits (if it hangs, stop it with 'kill \(p)')"
        case .corrupt:
            return "restore or remove that file, then run 'todo doctor'"
        case .misnamedOperation(_, let expected):
            return "rename it to \(expected) (its name as todo wrote it; the file's content is the operation), then try again"
        case .io:
            return "check the path, its permissions and the free space, then try again"
        case .unfinished:
            return "nothing is lost: .todo/journal.json holds the change and todo already shows it; fix the cause (permissions, free space, an immutable file: 'lsattr'), then any todo command or 'todo doctor' finishes it"
        case .busy:
            return "another todo command is writing; try again"
        case .editedByHand(let edit):
            return Self.editedByHandHint(edit)
        }
    }

    /// What to do about an edit by hand: record it (`--adopt`) or put back what todo wrote
    /// (`--discard`); `doctor` gives it after the finding.
    static func editedByHandHint(_ edit: HandEdit) -> String {
        let short = edit.id.count <= 8 ? edit.id : String(edit.id.prefix(8))
        switch edit.subject {
        case .item:
            return "record it with 'todo edit \(short) --adopt', or put back what todo wrote with 'todo edit \(short) --discard'"
        case .operation:
            return "keep it (the item then shows what the operation sends) with 'todo edit \(short) --adopt', or put back what todo wrote with 'todo edit \(short) --discard'"
        }
    }
}
