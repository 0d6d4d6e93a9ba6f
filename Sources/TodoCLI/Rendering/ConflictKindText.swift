import TodoModel

extension Conflict.Kind {
    /// The name `todo status`, `diff`, `show`, `resolve` and push's lines show (sync.md §7.3).
    var text: String {
        switch self {
        case .rejected(let status, let message):
            "rejected by the server (\(status.map(String.init) ?? "no status"): \(message ?? "no message"))"
        case .addedOnBothSides: "added on both sides"
        case .addedHereDeletedThere: "added here, deleted there"
        case .changedOnBothSides: "changed on both sides"
        case .changedHereDeletedThere: "changed here, deleted there"
        case .deletedHereChangedThere: "deleted here, changed there"
        }
    }
}

extension Conflict {
    /// `kind`, named.
    var kindDescription: String { kind.text }
}
