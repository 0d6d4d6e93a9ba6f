import Testing
@testable import TodoCLI
import TodoModel

/// The words of refused changes, purges and resolutions (sync.md's texts), one row a case.
@Suite struct RefusalTextTests {
    static let changes: [(ChangeRefusal, String)] = [
        (.conflictOpen("x"), "item x has an unresolved conflict; run 'todo resolve x'"),
        (.alreadyExists("x"), "item x already exists"),
        (.alreadyQueuedForInsertion("x"), "item x is already queued for insertion"),
        (.queuedForDeletion("x"), "item x is queued for deletion and may already be on the server; push first"),
        (.noSuchItem("x"), "no such item x"),
    ]

    @Test("each refused change", arguments: changes) func change(_ refusal: ChangeRefusal, _ text: String) {
        #expect(refusal.message == text)
    }

    static let purges: [(PurgeRefusal, String)] = [
        (.pending(table: "todoitem", operations: 1, conflicts: 0), "table todoitem has 1 pending operation; push them, or use --force to drop them"),
        (.pending(table: "todoitem", operations: 3, conflicts: 1), "table todoitem has 3 pending operations; push them, or use --force to drop them"),
        (.pending(table: "todoitem", operations: 0, conflicts: 2), "table todoitem has 2 open conflicts; resolve them, or use --force to drop them"),
        (.unknownQuery(table: "todoitem", query: "nope", known: ["open"]), "table todoitem has no query 'nope'"),
    ]

    @Test("each refused purge", arguments: purges) func purge(_ refusal: PurgeRefusal, _ text: String) {
        #expect(refusal.message == text)
    }

    static let file = ".todo/conflicts/todoitem.x.json"
    static let resolutions: [(ResolutionFailure, String)] = [
        (.noResolution(id: "X"),
         "no resolution for X; edit 'resolved' in .todo/conflicts/todoitem.x.json, or use --use-client, --use-server or --merge"),
        (.clash(id: "X", fields: ["note", "text"]), "cannot merge X: note, text changed on both sides"),
        (.deletionCannotBeMerged(id: "X", kind: .changedHereDeletedThere), "cannot merge X: a deletion cannot be merged (changed here, deleted there)"),
        (.nothingToMerge(id: "X"), "cannot merge X: the server rejected the operation, so there is nothing to merge"),
        (.invalidResolution(id: "X", reason: "\"text\" must be a string, not number"),
         "invalid resolution for X in .todo/conflicts/todoitem.x.json: \"text\" must be a string, not number"),
        (.incompleteResolution(id: "X", fields: ["complete", "old"]),
         "incomplete resolution for X in .todo/conflicts/todoitem.x.json: it leaves out \"complete\", \"old\", which the base, client or server copy has"),
        (.inconsistent(id: "X", .notPending(9)), "cannot resolve X: its operation #9 is not pending; run 'todo doctor'"),
        (.inconsistent(id: "X", .notFirst(9)), "cannot resolve X: operation #9 is not the item's first pending operation; run 'todo doctor'"),
        (.inconsistent(id: "X", .followsAnEnd(9)), "cannot resolve X: operation #9 follows an operation that ends the item"),
        (.inconsistent(id: "X", .insertBehind(9)), "cannot resolve X: operation #9 is an insert behind another operation"),
        (.inconsistent(id: "X", .cannotFollow(sequence: 9, after: 8, .noSuchItem("X"))), "cannot resolve X: operation #9 cannot follow #8: no such item X"),
        (.inconsistent(id: "X", .cannotFold(9)), "cannot resolve X: operation #9 cannot be folded"),
    ]

    @Test("each failed resolution", arguments: resolutions) func resolution(_ failure: ResolutionFailure, _ text: String) {
        #expect(failure.message(conflictFile: Self.file) == text)
    }
}
