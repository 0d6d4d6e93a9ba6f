import TodoModel

// What a refused local change, purge or resolution says: the model's reasons, worded here.

extension ChangeRefusal {
    var message: String {
        switch self {
        case .conflictOpen(let id): "item \(id) has an unresolved conflict; run 'todo resolve \(id)'"
        case .alreadyExists(let id): "item \(id) already exists"
        case .alreadyQueuedForInsertion(let id): "item \(id) is already queued for insertion"
        case .queuedForDeletion(let id): "item \(id) is queued for deletion and may already be on the server; push first"
        case .noSuchItem(let id): "no such item \(id)"
        }
    }
}

extension PurgeRefusal {
    var message: String {
        switch self {
        case .pending(let table, let operations, let conflicts):
            operations == 0
                ? "table \(table) has \(Plural.count(conflicts, "open conflict")); resolve them, or use --force to drop them"
                : "table \(table) has \(Plural.count(operations, "pending operation")); push them, or use --force to drop them"
        case .unknownQuery(let table, let query, _):
            "table \(table) has no query '\(query)'"
        }
    }
}

extension ResolutionFailure {
    /// `conflictFile` is where the user writes `resolved`.
    func message(conflictFile: String) -> String {
        switch self {
        case .noResolution(let id):
            "no resolution for \(id); edit 'resolved' in \(conflictFile), or use --use-client, --use-server or --merge"
        case .clash(let id, let fields):
            "cannot merge \(id): \(fields.joined(separator: ", ")) changed on both sides"
        case .deletionCannotBeMerged(let id, let kind):
            "cannot merge \(id): a deletion cannot be merged (\(kind.text))"
        case .nothingToMerge(let id):
            "cannot merge \(id): the server rejected the operation, so there is nothing to merge"
        case .invalidResolution(let id, let reason):
            "invalid resolution for \(id) in \(conflictFile): \(reason)"
        case .incompleteResolution(let id, let fields):
            "incomplete resolution for \(id) in \(conflictFile): it leaves out \(fields.map { "\"\($0)\"" }.joined(separator: ", ")), "
                + "which the base, client or server copy has"
        case .inconsistent(let id, let inconsistency):
            "cannot resolve \(id): \(Self.text(inconsistency))"
        }
    }

    static func text(_ inconsistency: Inconsistency) -> String {
        switch inconsistency {
        case .notFirst(let sequence): "operation #\(sequence) is not the item's first pending operation; run 'todo doctor'"
        case .notPending(let sequence): "its operation #\(sequence) is not pending; run 'todo doctor'"
        case .followsAnEnd(let sequence): "operation #\(sequence) follows an operation that ends the item"
        case .insertBehind(let sequence): "operation #\(sequence) is an insert behind another operation"
        case .cannotFollow(let sequence, let after, let refusal): "operation #\(sequence) cannot follow #\(after): \(refusal.message)"
        case .cannotFold(let sequence): "operation #\(sequence) cannot be folded"
        }
    }
}
