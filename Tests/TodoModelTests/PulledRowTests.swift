import Testing
import TodoModel

/// Every row of the table of sync.md §5.5 (a pulled row meets the replica) and of §7.4 (a pulled
/// row refreshes an open conflict), on the pure rule: no store, no server.
@Suite struct PulledRowTests {
    static let now = "2024-05-02T08:00:00.000Z"

    static func server(_ id: String = "x", _ version: String?, _ fields: [String: JSONValue],
                       deleted: Bool = false, updatedAt: String = "2024-05-01T09:00:00.000Z") -> Item {
        Item(id: id, fields: fields, system: SystemProperties(createdAt: "2024-05-01T09:00:00.000Z", updatedAt: updatedAt,
                                                             version: version, deleted: deleted))
    }

    static let v1 = server("x", "v1", ["text": "a", "complete": false], updatedAt: "2024-05-01T09:00:00.000Z")
    static let v1File = PulledRow.itemCopy(v1)

    static func op(_ kind: PendingOperation.Kind, _ fields: [String: JSONValue], base: Item? = v1, sequence: Int = 1,
                   attempted: Bool = false) -> PendingOperation {
        PendingOperation(sequence: sequence, table: "todoitem", id: "x", kind: kind, item: Item(id: "x", fields: fields),
                         base: kind == .insert ? nil : base, attempted: attempted, queuedAt: now)
    }

    static func local(_ item: Item?, _ ops: [PendingOperation] = [], conflict: Conflict? = nil) -> PulledRow.Local {
        PulledRow.Local(table: "todoitem", item: item, operations: ops, conflict: conflict)
    }

    /// The item file an unsealed update or insert leaves: the op's copy with the base's `ms_` members.
    static func edited(_ fields: [String: JSONValue], base: Item? = v1) -> Item {
        var system = base?.system ?? .none
        system.deleted = nil
        return Item(id: "x", fields: fields, system: system)
    }

    /// A plan that changes nothing at all.
    static func expectNoChange(_ plan: PulledRow.Plan, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(plan.item == nil, sourceLocation: sourceLocation)
        #expect(plan.writes.isEmpty && plan.removals.isEmpty && plan.receipts.isEmpty, sourceLocation: sourceLocation)
        #expect(plan.conflict == nil, sourceLocation: sourceLocation)
    }

    /// The new conflict a plan writes, checked against what every pull-detected conflict holds.
    static func newConflict(_ plan: PulledRow.Plan, op: PendingOperation, row: Item, client: Item?,
                            sourceLocation: SourceLocation = #_sourceLocation) -> Conflict? {
        #expect(plan.outcome == .conflict, sourceLocation: sourceLocation)
        #expect(plan.item == nil && plan.writes.isEmpty && plan.removals.isEmpty && plan.receipts.isEmpty,
                "a conflict leaves the item and its op alone", sourceLocation: sourceLocation)
        guard case .some(.some(let c)) = plan.conflict else {
            Issue.record("no conflict written", sourceLocation: sourceLocation)
            return nil
        }
        #expect(c.detectedBy == .pull && c.status == nil && c.reason == .conflict && c.detectedAt == now, sourceLocation: sourceLocation)
        #expect(c.operation == op.reference && c.base == op.base && c.server == row && c.client == client, sourceLocation: sourceLocation)
        #expect(c.resolved.isNull, sourceLocation: sourceLocation)
        return c
    }

    // MARK: §5.5 cases 2 and 3: no ops

    @Test("2: a deleted row removes the item, and changes nothing for an unknown one") func deletedRowWithoutOps() {
        let gone = Self.server("x", "v2", ["text": "a"], deleted: true)
        let plan = PulledRow.apply(gone, to: Self.local(Self.v1File), now: Self.now)
        #expect(plan.outcome == .removed)
        #expect(plan.item == .some(nil))
        #expect(plan.writes.isEmpty && plan.removals.isEmpty && plan.receipts.isEmpty && plan.conflict == nil)
        let unknown = PulledRow.apply(gone, to: Self.local(nil), now: Self.now)
        #expect(unknown.outcome == .unchanged)
        Self.expectNoChange(unknown)
    }

    @Test("3: a live row creates or replaces the item, taking the server's id spelling, without ms_deleted") func liveRowWithoutOps() {
        let row = Self.server("X", "v2", ["text": "b"])
        let created = PulledRow.apply(row, to: Self.local(nil), now: Self.now)
        #expect(created.outcome == .created)
        let item = try? #require(created.item ?? nil)
        #expect(item?.id == "X" && item?.fields == ["text": "b"] && item?.system.version == "v2")
        #expect(item?.system.deleted == nil, "item files never hold ms_deleted")
        #expect(created.receipts.isEmpty && created.conflict == nil)

        let replaced = PulledRow.apply(row, to: Self.local(Self.v1File), now: Self.now)
        #expect(replaced.outcome == .updated)
        #expect(replaced.item == .some(PulledRow.itemCopy(row)))

        let again = PulledRow.apply(row, to: Self.local(PulledRow.itemCopy(row)), now: Self.now)
        #expect(again.outcome == .unchanged, "applying the same row twice is harmless")
        Self.expectNoChange(again)
    }

    // MARK: Cases 4–6: one unsealed insert

    @Test("4: an insert meets its own row: op removed, item := R, absorb receipt") func insertAbsorbed() {
        let insert = Self.op(.insert, ["text": "a", "complete": false])
        let row = Self.server("X", "v1", ["text": "a", "complete": false])
        let plan = PulledRow.apply(row, to: Self.local(Item(id: "x", fields: insert.item.fields), [insert]), now: Self.now)
        #expect(plan.outcome == .absorbed)
        #expect(plan.removals == [insert] && plan.writes.isEmpty)
        #expect(plan.item == .some(PulledRow.itemCopy(row)))
        #expect(plan.receipts.count == 1)
        let r = plan.receipts.first
        #expect(r?.decision == .absorb && r?.rule == "pull" && r?.operation == insert.reference && r?.lost.isEmpty == true)
        #expect(r?.kept == row.userCopy)
    }

    @Test("5: an insert meets a different row: conflict, added on both sides, with the clashing fields") func insertAddedOnBothSides() {
        let insert = Self.op(.insert, ["text": "mine", "complete": false])
        let client = Item(id: "x", fields: insert.item.fields)
        let row = Self.server("x", "v1", ["text": "theirs", "complete": false])
        let plan = PulledRow.apply(row, to: Self.local(client, [insert]), now: Self.now)
        let c = Self.newConflict(plan, op: insert, row: row, client: client)
        #expect(c?.fields == ["text"])
        #expect(c?.kind == .addedOnBothSides)
    }

    @Test("6: an insert meets a deleted row: conflict, added here, deleted there") func insertDeletedThere() {
        let insert = Self.op(.insert, ["text": "a"])
        let client = Item(id: "x", fields: insert.item.fields)
        let row = Self.server("x", "v2", ["text": "a"], deleted: true)
        let c = Self.newConflict(PulledRow.apply(row, to: Self.local(client, [insert]), now: Self.now), op: insert, row: row, client: client)
        #expect(c?.fields == [])
        #expect(c?.kind == .addedHereDeletedThere)
    }

    // MARK: Cases 7–11: one unsealed update

    @Test("7: an update skips a row at its base version, live or deleted") func updateServerUnchanged() {
        let update = Self.op(.update, ["text": "b", "complete": false])
        let local = Self.local(Self.edited(update.item.fields), [update])
        for row in [Self.v1, Self.server("x", "v1", ["text": "a"], deleted: true)] {
            let plan = PulledRow.apply(row, to: local, now: Self.now)
            #expect(plan.outcome == .skippedPending)
            Self.expectNoChange(plan)
        }
    }

    @Test("7, without versions: ms_updatedAt and the user fields decide") func updateWithoutVersions() {
        let base = Self.server("x", nil, ["text": "a"], updatedAt: "2024-05-01T09:00:00.000Z")
        let update = Self.op(.update, ["text": "b"], base: base)
        let local = Self.local(Self.edited(update.item.fields, base: base), [update])
        let same = Self.server("x", nil, ["text": "a"], updatedAt: "2024-05-01T09:00:00.000Z")
        #expect(PulledRow.apply(same, to: local, now: Self.now).outcome == .skippedPending)
        let later = Self.server("x", nil, ["text": "a", "complete": true], updatedAt: "2024-05-01T09:00:01.000Z")
        #expect(PulledRow.apply(later, to: local, now: Self.now).outcome == .merged)
    }

    @Test("8: an update meets a deleted row: conflict, changed here, deleted there") func updateDeletedThere() {
        let update = Self.op(.update, ["text": "b", "complete": false])
        let client = Self.edited(update.item.fields)
        let row = Self.server("x", "v2", ["text": "a", "complete": false], deleted: true)
        let c = Self.newConflict(PulledRow.apply(row, to: Self.local(client, [update]), now: Self.now), op: update, row: row, client: client)
        #expect(c?.fields == [])
        #expect(c?.server?.isDeleted == true)
        #expect(c?.kind == .changedHereDeletedThere)
    }

    @Test("9: the server already holds the change: op removed, item := R, absorb receipt") func updateAbsorbed() {
        let update = Self.op(.update, ["text": "b", "complete": false])
        let row = Self.server("X", "v2", ["text": "b", "complete": false])
        let plan = PulledRow.apply(row, to: Self.local(Self.edited(update.item.fields), [update]), now: Self.now)
        #expect(plan.outcome == .absorbed)
        #expect(plan.removals == [update] && plan.writes.isEmpty)
        #expect(plan.item == .some(PulledRow.itemCopy(row)))
        #expect(plan.receipts.map(\.decision) == [.absorb])
        // Applied again, the op is gone: case 3 rewrites the same item.
        let again = PulledRow.apply(row, to: Self.local(PulledRow.itemCopy(row)), now: Self.now)
        #expect(again.outcome == .unchanged)
    }

    @Test("10: disjoint changes merge: item and op := merged, base := R, merge pull receipt") func updateMerged() {
        let update = Self.op(.update, ["text": "b", "complete": false])
        let row = Self.server("X", "v2", ["text": "a", "complete": true, "note": "n"])
        let plan = PulledRow.apply(row, to: Self.local(Self.edited(update.item.fields), [update]), now: Self.now)
        #expect(plan.outcome == .merged)
        let merged: [String: JSONValue] = ["text": "b", "complete": true, "note": "n"]
        let item = try? #require(plan.item ?? nil)
        #expect(item?.fields == merged)
        #expect(item?.id == "X" && item?.system.version == "v2" && item?.system.updatedAt == row.system.updatedAt)
        #expect(item?.system.deleted == nil)
        #expect(plan.removals.isEmpty && plan.writes.count == 1)
        let rebased = plan.writes.first
        #expect(rebased?.sequence == update.sequence && rebased?.kind == .update && rebased?.attempted == false)
        #expect(rebased?.item.fields == merged && rebased?.item.system.isEmpty == true)
        #expect(rebased?.base == row)
        let r = plan.receipts.first
        #expect(plan.receipts.count == 1 && r?.decision == .merge && r?.rule == "pull" && r?.lost.isEmpty == true)
        #expect(r?.fields?.fromClient == ["text"] && r?.fields?.fromServer.sorted() == ["complete", "note"])
        // Applied again, the base is R: case 7.
        if let rebased, let item {
            #expect(PulledRow.apply(row, to: Self.local(item, [rebased]), now: Self.now).outcome == .skippedPending)
        }
    }

    @Test("11: a clash is a conflict, changed on both sides, with the clashing fields") func updateClash() {
        let update = Self.op(.update, ["text": "b", "complete": true])
        let client = Self.edited(update.item.fields)
        let row = Self.server("x", "v2", ["text": "c", "complete": true])
        let c = Self.newConflict(PulledRow.apply(row, to: Self.local(client, [update]), now: Self.now), op: update, row: row, client: client)
        #expect(c?.fields == ["text"])
        #expect(c?.kind == .changedOnBothSides)
    }

    // MARK: Cases 12–14: one unsealed delete

    @Test("12: a delete skips a row at its base version: the item stays deleted") func deleteServerUnchanged() {
        let delete = Self.op(.delete, ["text": "a", "complete": false])
        let plan = PulledRow.apply(Self.v1, to: Self.local(nil, [delete]), now: Self.now)
        #expect(plan.outcome == .skippedPending)
        Self.expectNoChange(plan)
    }

    @Test("13: both deleted: the op is removed, with a both-deleted receipt") func bothDeleted() {
        let delete = Self.op(.delete, ["text": "a", "complete": false])
        let row = Self.server("x", "v2", ["text": "a"], deleted: true)
        let plan = PulledRow.apply(row, to: Self.local(nil, [delete]), now: Self.now)
        #expect(plan.outcome == .bothDeleted)
        #expect(plan.removals == [delete] && plan.writes.isEmpty && plan.conflict == nil)
        #expect(plan.item == nil || plan.item == .some(nil), "the item stays absent")
        let r = plan.receipts.first
        #expect(plan.receipts.count == 1 && r?.decision == .bothDeleted && r?.rule == "pull" && r?.kept == nil && r?.lost.isEmpty == true)
    }

    @Test("14: a delete meets a changed row: conflict, deleted here, changed there, client null") func deleteChangedThere() {
        let delete = Self.op(.delete, ["text": "a", "complete": false])
        let row = Self.server("x", "v2", ["text": "z"])
        let c = Self.newConflict(PulledRow.apply(row, to: Self.local(nil, [delete]), now: Self.now), op: delete, row: row, client: nil)
        #expect(c?.fields == [])
        #expect(c?.kind == .deletedHereChangedThere)
    }

    // MARK: Case 15

    @Test("15: sealed ops, or more than one op: the row is not applied") func sealedOrSeveral() {
        let row = Self.server("x", "v2", ["text": "z"])
        let sealed = Self.op(.insert, ["text": "a"], attempted: true)
        let one = PulledRow.apply(row, to: Self.local(Item(id: "x", fields: ["text": "a"]), [sealed]), now: Self.now)
        #expect(one.outcome == .skippedSealed)
        Self.expectNoChange(one)
        let sealedUpdate = Self.op(.update, ["text": "b"], attempted: true)
        let behind = Self.op(.delete, ["text": "b"], sequence: 2)
        let two = PulledRow.apply(row, to: Self.local(nil, [sealedUpdate, behind]), now: Self.now)
        #expect(two.outcome == .skippedSealed)
        Self.expectNoChange(two)
        let deleted = Self.server("x", "v3", [:], deleted: true)
        #expect(PulledRow.apply(deleted, to: Self.local(nil, [sealedUpdate, behind]), now: Self.now).outcome == .skippedSealed)
    }
}
