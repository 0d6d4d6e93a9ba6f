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
        case .io:
            return "check the path, its permissions and the free space, then try again"
        case .unfinished:
            return "nothing is lost: .todo/journal.json holds the change and todo already shows it; fix the cause (permissions, free space, an immutable file: 'lsattr'), then any todo command or 'todo doctor' finishes it"
        case .busy:
            return "another todo command is writing; try again"
        case .editedByHand(let edit):
            return StoreError.editedByHandHint(edit)
        }
    }
}
