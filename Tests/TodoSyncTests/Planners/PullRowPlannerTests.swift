import Testing
import TodoModel
@testable import TodoSync

/// The table of sync.md §5.5 (a pulled row meets the replica) and the refresh table of §7.4, one
/// row a case, on the pull planner: the row and the item's local state in, the decision and the
/// store changes out. No store, no server.
@Suite struct PullRowPlannerTests {
    /// One row of the spec's table: its text, the inputs, and what the planner must answer.
    struct Case: CustomTestStringConvertible, Sendable {
        let spec: String
        let local: PulledRow.Local
        let row: Item
        let decision: RowDecision
        let effects: Effects
        var testDescription: String { spec }
    }

    /// The store changes of a decision, in short.
    struct Effects: Equatable, Sendable {
        enum Conflict: Equatable, Sendable { case untouched, write(fields: [String], server: Item?, resolved: JSONValue), remove }
        var item: PagePlan.Change<Item>?
        var removedOps: [Int] = []
        var writtenOps: [Int] = []
        var conflict: Conflict = .untouched
        var receipts: [Receipt.Decision] = []

        static let none = Effects()

        init(item: PagePlan.Change<Item>? = nil, removedOps: [Int] = [], writtenOps: [Int] = [], conflict: Conflict = .untouched,
             receipts: [Receipt.Decision] = []) {
            self.item = item
            self.removedOps = removedOps
            self.writtenOps = writtenOps
            self.conflict = conflict
            self.receipts = receipts
        }

        init(_ row: PagePlan.Row) {
            item = row.item
            removedOps = row.removals.map(\.sequence)
            writtenOps = row.writes.map(\.sequence)
            switch row.conflict {
            case .write(let c): conflict = .write(fields: c.fields, server: c.server, resolved: c.resolved)
            case .remove: conflict = .remove
            case nil: conflict = .untouched
            }
            receipts = row.receipts.map(\.decision)
        }
    }

    // MARK: Fixtures

    static let now = "2024-05-02T08:00:00.000Z"

    static func server(_ id: String = "x", _ version: String?, _ fields: [String: JSONValue], deleted: Bool = false,
                       updatedAt: String = "2024-05-01T09:00:00.000Z") -> Item {
        Item(id: id, fields: fields, system: SystemProperties(createdAt: "2024-05-01T09:00:00.000Z", updatedAt: updatedAt,
                                                             version: version, deleted: deleted))
    }

    /// The row the replica last pulled, and the base of its ops.
    static let v1 = server("x", "v1", ["text": "a", "complete": false])
    static let v1File = PulledRow.itemCopy(v1)

    static func op(_ kind: PendingOperation.Kind, _ fields: [String: JSONValue], sequence: Int = 1, sealed: Bool = false) -> PendingOperation {
        PendingOperation(sequence: sequence, table: "todoitem", id: "x", kind: kind, item: Item(id: "x", fields: fields),
                         base: kind == .insert ? nil : v1, attempted: sealed, queuedAt: now)
    }

    /// The item file an unsealed insert or update leaves.
    static func edited(_ fields: [String: JSONValue], base: Item? = v1) -> Item {
        var system = base?.system ?? .none
        system.deleted = nil
        return Item(id: "x", fields: fields, system: system)
    }

    static func local(_ item: Item?, _ ops: [PendingOperation] = [], conflict: Conflict? = nil) -> PulledRow.Local {
        PulledRow.Local(table: "todoitem", item: item, operations: ops, conflict: conflict)
    }

    static func open(_ op: PendingOperation, server: Item?, fields: [String], reason: Conflict.Reason = .conflict,
                     client: Item?, resolved: JSONValue = .null) -> Conflict {
        Conflict(table: "todoitem", id: "x", reason: reason, operation: op.reference, status: reason == .rejected ? 400 : 412,
                 detectedBy: .push, detectedAt: "2024-05-01T10:00:00.000Z", message: nil, base: op.base, client: client,
                 server: server, fields: fields, resolved: resolved)
    }

    static let insert = op(.insert, ["text": "a", "complete": false])
    static let update = op(.update, ["text": "b", "complete": false])
    static let delete = op(.delete, ["text": "a", "complete": false])
    static let v2Merges = server("X", "v2", ["text": "a", "complete": true])
    static let merged = Item(id: "X", fields: ["text": "b", "complete": true], system: PulledRow.itemCopy(v2Merges).system)
    static let v2Clashes = server("x", "v2", ["text": "c", "complete": false])
    static let v2Deleted = server("x", "v2", ["text": "a", "complete": false], deleted: true)
    static let v2HasTheChange = server("X", "v2", ["text": "b", "complete": false])

    // MARK: §5.5

    static let applying: [Case] = [
        Case(spec: "1 | open conflict for the item | any | refresh the conflict (§7.4); nothing else",
             local: local(edited(update.item.fields), [update], conflict: open(update, server: v1, fields: [], client: edited(update.item.fields))),
             row: v2Clashes, decision: .refreshConflict(.stillOpen),
             effects: Effects(conflict: .write(fields: ["text"], server: v2Clashes, resolved: .null))),
        Case(spec: "2 | no ops | deleted | remove the item if present", local: local(v1File), row: v2Deleted,
             decision: .apply(.removed), effects: Effects(item: .remove(id: "x"))),
        Case(spec: "2 | no ops | deleted | remove the item if present (absent: nothing)", local: local(nil), row: v2Deleted,
             decision: .skip(.alreadyThere), effects: .none),
        Case(spec: "3 | no ops | live | item := R (created; the id takes R's spelling)", local: local(nil), row: v2Merges,
             decision: .apply(.created), effects: Effects(item: .write(PulledRow.itemCopy(v2Merges)))),
        Case(spec: "3 | no ops | live | item := R (replaced; the id takes R's spelling)", local: local(v1File), row: v2Merges,
             decision: .apply(.updated), effects: Effects(item: .write(PulledRow.itemCopy(v2Merges)))),
        Case(spec: "3 | no ops | live | item := R (the same row again: nothing changes)", local: local(PulledRow.itemCopy(v2Merges)),
             row: v2Merges, decision: .skip(.alreadyThere), effects: .none),
        Case(spec: "4 | one unsealed insert | live, equal to item | the insert already landed: op removed, item := R | absorb",
             local: local(Item(id: "x", fields: insert.item.fields), [insert]), row: server("X", "v1", ["text": "a", "complete": false]),
             decision: .apply(.absorbed),
             effects: Effects(item: .write(PulledRow.itemCopy(server("X", "v1", ["text": "a", "complete": false]))), removedOps: [1],
                              receipts: [.absorb])),
        Case(spec: "5 | one unsealed insert | live, different | conflict: added on both sides (detectedBy: pull)",
             local: local(Item(id: "x", fields: insert.item.fields), [insert]), row: v2Clashes,
             decision: .recordConflict(fields: ["text"]), effects: Effects(conflict: .write(fields: ["text"], server: v2Clashes, resolved: .null))),
        Case(spec: "6 | one unsealed insert | deleted | conflict: added here, deleted there",
             local: local(Item(id: "x", fields: insert.item.fields), [insert]), row: v2Deleted,
             decision: .recordConflict(fields: []), effects: Effects(conflict: .write(fields: [], server: v2Deleted, resolved: .null))),
        Case(spec: "7 | one unsealed update | live, version = base version | skip: the server has not changed since the base",
             local: local(edited(update.item.fields), [update]), row: v1, decision: .skip(.serverUnchangedSinceBase), effects: .none),
        Case(spec: "7 | one unsealed update | deleted, version = base version | skip: the server has not changed since the base",
             local: local(edited(update.item.fields), [update]), row: server("x", "v1", ["text": "a"], deleted: true),
             decision: .skip(.serverUnchangedSinceBase), effects: .none),
        Case(spec: "8 | one unsealed update | deleted | conflict: changed here, deleted there",
             local: local(edited(update.item.fields), [update]), row: v2Deleted,
             decision: .recordConflict(fields: []), effects: Effects(conflict: .write(fields: [], server: v2Deleted, resolved: .null))),
        Case(spec: "9 | one unsealed update | live, clean merge, merged equals R | op removed, item := R | absorb",
             local: local(edited(update.item.fields), [update]), row: v2HasTheChange, decision: .apply(.absorbed),
             effects: Effects(item: .write(PulledRow.itemCopy(v2HasTheChange)), removedOps: [1], receipts: [.absorb])),
        Case(spec: "10 | one unsealed update | live, clean merge, merged differs from R | item := merged, op rebased | merge pull",
             local: local(edited(update.item.fields), [update]), row: v2Merges, decision: .apply(.merged),
             effects: Effects(item: .write(merged), writtenOps: [1], receipts: [.merge])),
        Case(spec: "11 | one unsealed update | live, clash | conflict: changed on both sides, with the clashing fields",
             local: local(edited(update.item.fields), [update]), row: v2Clashes,
             decision: .recordConflict(fields: ["text"]), effects: Effects(conflict: .write(fields: ["text"], server: v2Clashes, resolved: .null))),
        Case(spec: "12 | one unsealed delete | version = base version | skip: the item stays deleted locally",
             local: local(nil, [delete]), row: v1, decision: .skip(.serverUnchangedSinceBase), effects: .none),
        Case(spec: "13 | one unsealed delete | deleted | both deleted: op removed | both-deleted",
             local: local(nil, [delete]), row: v2Deleted, decision: .apply(.bothDeleted),
             effects: Effects(removedOps: [1], receipts: [.bothDeleted])),
        Case(spec: "14 | one unsealed delete | live, other version | conflict: deleted here, changed there",
             local: local(nil, [delete]), row: v2Clashes,
             decision: .recordConflict(fields: []), effects: Effects(conflict: .write(fields: [], server: v2Clashes, resolved: .null))),
        Case(spec: "15 | sealed ops | any | not applied; the push's replay check will reconcile the item",
             local: local(Item(id: "x", fields: insert.item.fields), [op(.insert, ["text": "a"], sealed: true)]), row: v2Clashes,
             decision: .skip(.sealedOrManyOperations), effects: .none),
        Case(spec: "15 | more than one op | any | not applied; the push's replay check will reconcile the item",
             local: local(nil, [op(.update, ["text": "b"], sealed: true), op(.delete, ["text": "b"], sequence: 2)]), row: v2Deleted,
             decision: .skip(.sealedOrManyOperations), effects: .none),
    ]

    @Test("§5.5 Applying a pulled row", arguments: applying) func applyingARow(_ c: Case) {
        let page = PullPlanner.page([c.row], table: "todoitem", locals: [LocalIndex.slot("todoitem", "x"): c.local], now: Self.now)
        #expect(page.rows.map(\.decision) == [c.decision])
        #expect(page.rows.map(Effects.init) == [c.effects])
    }

    // MARK: §7.4

    static let closedByMerge = server("X", "v3", ["text": "a", "complete": true], updatedAt: "2024-05-01T09:00:03.000Z")
    static let closedByAbsorb = server("X", "v3", ["text": "b", "complete": false], updatedAt: "2024-05-01T09:00:03.000Z")

    static let refreshing: [Case] = [
        Case(spec: "A rejected record gets server := R. Nothing else changes.",
             local: local(edited(update.item.fields), [update], conflict: open(update, server: v1, fields: [], reason: .rejected, client: nil)),
             row: v2HasTheChange, decision: .refreshConflict(.stillOpen),
             effects: Effects(conflict: .write(fields: [], server: v2HasTheChange, resolved: .null))),
        Case(spec: "A conflict record whose server already has R's version is left alone.",
             local: local(edited(update.item.fields), [update], conflict: open(update, server: v2Clashes, fields: ["text"], client: nil)),
             row: v2Clashes, decision: .refreshConflict(.alreadyCurrent), effects: .none),
        Case(spec: "update (the item's only op) | live, clean merge | closes: the effect of case 10 | merge pull",
             local: local(edited(update.item.fields), [update], conflict: open(update, server: v2Clashes, fields: ["text"], client: nil)),
             row: closedByMerge, decision: .refreshConflict(.closes(.merged)),
             effects: Effects(item: .write(Item(id: "X", fields: ["text": "b", "complete": true], system: PulledRow.itemCopy(closedByMerge).system)),
                              writtenOps: [1], conflict: .remove, receipts: [.merge])),
        Case(spec: "update (the item's only op) | live, clean merge | closes: the effect of case 9 | absorb",
             local: local(edited(update.item.fields), [update], conflict: open(update, server: v2Clashes, fields: ["text"], client: nil)),
             row: closedByAbsorb, decision: .refreshConflict(.closes(.absorbed)),
             effects: Effects(item: .write(PulledRow.itemCopy(closedByAbsorb)), removedOps: [1], conflict: .remove, receipts: [.absorb])),
        Case(spec: "update | deleted | stays open (changed here, deleted there)",
             local: local(edited(update.item.fields), [update], conflict: open(update, server: v2Clashes, fields: ["text"], client: nil)),
             row: server("x", "v3", ["text": "c"], deleted: true), decision: .refreshConflict(.stillOpen),
             effects: Effects(conflict: .write(fields: [], server: server("x", "v3", ["text": "c"], deleted: true), resolved: .null))),
        Case(spec: "insert | live, equal to the client | closes: the insert landed (§5.5 case 4) | absorb",
             local: local(Item(id: "x", fields: insert.item.fields), [insert], conflict: open(insert, server: v2Clashes, fields: ["text"], client: nil)),
             row: server("x", "v3", ["text": "a", "complete": false]), decision: .refreshConflict(.closes(.absorbed)),
             effects: Effects(item: .write(PulledRow.itemCopy(server("x", "v3", ["text": "a", "complete": false]))), removedOps: [1],
                              conflict: .remove, receipts: [.absorb])),
        Case(spec: "delete | deleted | closes: both deleted, op removed | both-deleted",
             local: local(nil, [delete], conflict: open(delete, server: v2Clashes, fields: [], client: nil)),
             row: server("x", "v3", ["text": "c"], deleted: true), decision: .refreshConflict(.closes(.bothDeleted)),
             effects: Effects(removedOps: [1], conflict: .remove, receipts: [.bothDeleted])),
        Case(spec: "any other | | stays open with the new server copy",
             local: local(edited(update.item.fields), [update], conflict: open(update, server: v2Clashes, fields: ["text"], client: nil)),
             row: server("x", "v3", ["text": "d"]), decision: .refreshConflict(.stillOpen),
             effects: Effects(conflict: .write(fields: ["text"], server: server("x", "v3", ["text": "d"]), resolved: .null))),
        Case(spec: "When resolved is set, the conflict stays open and keeps the user's resolution.",
             local: local(edited(update.item.fields), [update],
                          conflict: open(update, server: v2Clashes, fields: ["text"], client: nil, resolved: .string("delete"))),
             row: closedByMerge, decision: .refreshConflict(.stillOpen),
             effects: Effects(conflict: .write(fields: [], server: closedByMerge, resolved: .string("delete")))),
    ]

    @Test("§7.4 Refresh by pull", arguments: refreshing) func refreshingAConflict(_ c: Case) {
        let page = PullPlanner.page([c.row], table: "todoitem", locals: [LocalIndex.slot("todoitem", "x"): c.local], now: Self.now)
        #expect(page.rows.map(\.decision) == [c.decision])
        #expect(page.rows.map(Effects.init) == [c.effects])
    }
}
