import Testing
@testable import TodoModel

/// Every row of sync.md §3.3, §3.4 and §3.5.
@Suite struct CollapseTests {
    static let now = "2024-05-02T08:00:00.000Z"
    static let server = Item(id: "x", fields: ["text": "a", "complete": false],
                             system: SystemProperties(createdAt: "2024-05-01T09:00:00.000Z", updatedAt: "2024-05-01T09:00:00.000Z",
                                                      version: "v1"))

    static func op(_ kind: PendingOperation.Kind, seq: Int = 5, item: Item? = nil, sealed: Bool = false) -> PendingOperation {
        let copy = item ?? server
        return PendingOperation(sequence: seq, table: "todoitem", id: "x", kind: kind, item: copy,
                                base: kind == .insert ? nil : server, attempted: sealed, queuedAt: now)
    }

    static func history(item: Item?, ops: [PendingOperation], conflict: Bool = false) -> ItemHistory {
        ItemHistory(table: "todoitem", id: "x", item: item, operations: ops, hasConflict: conflict)
    }

    static func record(_ change: LocalChange, _ h: ItemHistory) throws(ChangeRefusal) -> ChangePlan {
        try OperationLog.record(change, on: h, nextSequence: 9, now: now)
    }

    static let newItem = Item(id: "x", fields: ["text": "n", "complete": false])

    // MARK: §3.3 no pending operation

    @Test func insertWithNoItemQueuesAnInsert() throws {
        let plan = try Self.record(.insert(Self.newItem), Self.history(item: nil, ops: []))
        #expect(plan.outcome == .queued(.insert, sequence: 9))
        #expect(plan.writes.count == 1 && plan.writes[0].base == nil && plan.writes[0].item == Self.newItem)
        #expect(plan.item == Self.newItem && plan.nextSequence == 10 && plan.receipts.isEmpty)
    }

    @Test func insertOverAnExistingItemIsRefused() {
        #expect(throws: ChangeRefusal.alreadyExists("x")) { try Self.record(.insert(Self.newItem), Self.history(item: Self.server, ops: [])) }
    }

    @Test func updateOrDeleteOfAnUnknownItemIsRefused() {
        #expect(throws: ChangeRefusal.noSuchItem("x")) { try Self.record(.update(["text": "b"]), Self.history(item: nil, ops: [])) }
        #expect(throws: ChangeRefusal.noSuchItem("x")) { try Self.record(.delete, Self.history(item: nil, ops: [])) }
    }

    @Test func updateQueuesAnUpdateBasedOnTheServerCopy() throws {
        let plan = try Self.record(.update(["text": "b", "complete": false]), Self.history(item: Self.server, ops: []))
        #expect(plan.outcome == .queued(.update, sequence: 9))
        #expect(plan.writes[0].base == Self.server)
        #expect(plan.writes[0].item.fields["text"] == "b")
        #expect(plan.item?.system.version == "v1", "the item keeps the server's system properties")
    }

    @Test func deleteQueuesADeleteWithASnapshot() throws {
        let plan = try Self.record(.delete, Self.history(item: Self.server, ops: []))
        #expect(plan.outcome == .queued(.delete, sequence: 9))
        #expect(plan.writes[0].item == Self.server.userCopy && plan.writes[0].base == Self.server)
        #expect(plan.item == nil)
    }

    @Test func aChangeThatChangesNothingQueuesNothing() throws {
        let plan = try Self.record(.update(Self.server.fields), Self.history(item: Self.server, ops: []))
        #expect(plan.outcome == .unchanged && plan.writes.isEmpty && plan.receipts.isEmpty && plan.nextSequence == 9)
    }

    // MARK: §3.4 collapse table

    @Test(arguments: [
        (PendingOperation.Kind.insert, ChangeRefusal.alreadyQueuedForInsertion("x")),
        (.update, .alreadyExists("x")),
    ])
    func insertAfterAnyPendingOperationIsRefused(kind: PendingOperation.Kind, refusal: ChangeRefusal) {
        let item: Item? = kind == .delete ? nil : Self.server
        #expect(throws: refusal) { try Self.record(.insert(Self.newItem), Self.history(item: item, ops: [Self.op(kind)])) }
    }

    /// Issue 19 item 3: after `rm`, adding the same id again works. The server still has the row,
    /// so the unsent delete becomes an update in place (same sequence, same base).
    @Test func deletePlusInsertBecomesAnUpdateOfTheServerCopy() throws {
        let pending = Self.op(.delete)
        let plan = try Self.record(.insert(Self.newItem), Self.history(item: nil, ops: [pending]))
        #expect(plan.outcome == .collapsed(rule: "delete+insert", sequence: 5))
        #expect(plan.writes.count == 1 && plan.writes[0].kind == .update && plan.writes[0].sequence == 5)
        #expect(plan.writes[0].base == Self.server && plan.writes[0].item.fields == Self.newItem.fields)
        #expect(plan.removals == [pending], "the delete's file goes (its name holds the kind)")
        #expect(plan.item?.fields == Self.newItem.fields && plan.item?.system.version == "v1")
        #expect(plan.receipts.count == 1 && plan.receipts[0].rule == "delete+insert")
        #expect(plan.receipts[0].lost["client"] == ["text": "a"])
        #expect(plan.nextSequence == 9)
    }

    @Test func deletePlusInsertOfTheSameFieldsLeavesNothingToPush() throws {
        let pending = Self.op(.delete)
        let plan = try Self.record(.insert(Item(id: "X", fields: Self.server.fields)), Self.history(item: nil, ops: [pending]))
        #expect(plan.outcome == .collapsed(rule: "delete+insert", sequence: nil))
        #expect(plan.writes.isEmpty && plan.removals == [pending])
        #expect(plan.item == Self.server, "back to the server copy, under its own spelling")
    }

    @Test func insertBehindASealedDeleteIsRefused() {
        #expect(throws: ChangeRefusal.queuedForDeletion("x")) {
            try Self.record(.insert(Self.newItem), Self.history(item: nil, ops: [Self.op(.delete, sealed: true)]))
        }
    }

    @Test func insertPlusUpdateIsAnInsertWithTheNewCopy() throws {
        let pending = Self.op(.insert, item: Self.newItem)
        let plan = try Self.record(.update(["text": "m", "complete": true]), Self.history(item: Self.newItem, ops: [pending]))
        #expect(plan.outcome == .collapsed(rule: "insert+update", sequence: 5))
        #expect(plan.writes.count == 1 && plan.writes[0].sequence == 5 && plan.writes[0].kind == .insert)
        #expect(plan.writes[0].item.fields == ["text": "m", "complete": true])
        #expect(plan.receipts.count == 1)
        #expect(plan.receipts[0].rule == "insert+update" && plan.receipts[0].decision == .collapse)
        #expect(plan.receipts[0].lost["client"] == ["text": "n", "complete": false])
        #expect(plan.nextSequence == 9, "no sequence number is used")
    }

    @Test func insertPlusDeleteLeavesNothing() throws {
        let pending = Self.op(.insert, item: Self.newItem)
        let plan = try Self.record(.delete, Self.history(item: Self.newItem, ops: [pending]))
        #expect(plan.outcome == .collapsed(rule: "insert+delete", sequence: nil))
        #expect(plan.writes.isEmpty && plan.removals == [pending] && plan.item == nil)
        #expect(plan.receipts[0].lost["client"] == Self.newItem.fields)
        #expect(plan.receipts[0].kept == nil)
    }

    @Test func updatePlusUpdateKeepsSequenceAndBase() throws {
        var local = Self.server
        local.fields["text"] = "b"
        let pending = Self.op(.update, item: local)
        let plan = try Self.record(.update(["text": "c", "complete": false]), Self.history(item: local, ops: [pending]))
        #expect(plan.outcome == .collapsed(rule: "update+update", sequence: 5))
        #expect(plan.writes[0].base == Self.server && plan.writes[0].item.fields["text"] == "c")
        #expect(plan.receipts[0].lost["client"] == ["text": "b"])
    }

    @Test func updateBackToTheBaseRemovesTheOperation() throws {
        var local = Self.server
        local.fields["text"] = "b"
        let pending = Self.op(.update, item: local)
        let plan = try Self.record(.update(Self.server.fields), Self.history(item: local, ops: [pending]))
        #expect(plan.outcome == .collapsed(rule: "update+update", sequence: nil))
        #expect(plan.writes.isEmpty && plan.removals == [pending])
        #expect(plan.receipts.count == 1 && plan.receipts[0].note != nil)
        #expect(plan.item?.fields == Self.server.fields)
    }

    @Test func updatePlusDeleteBecomesADeleteInPlace() throws {
        var local = Self.server
        local.fields["text"] = "b"
        local.fields["note"] = "n"
        let pending = Self.op(.update, item: local)
        let plan = try Self.record(.delete, Self.history(item: local, ops: [pending]))
        #expect(plan.outcome == .collapsed(rule: "update+delete", sequence: 5))
        #expect(plan.writes.count == 1 && plan.writes[0].kind == .delete && plan.writes[0].sequence == 5)
        #expect(plan.writes[0].base == Self.server && plan.writes[0].item == local.userCopy)
        #expect(plan.removals == [pending], "the old file (kind update) goes away")
        #expect(plan.receipts[0].lost["client"] == ["text": "b", "note": "n"])
        #expect(plan.item == nil)
    }

    @Test(arguments: [LocalChange.update(["text": "z"]), .delete])
    func changesAfterAPendingDeleteAreRefused(change: LocalChange) {
        #expect(throws: ChangeRefusal.noSuchItem("x")) { try Self.record(change, Self.history(item: nil, ops: [Self.op(.delete)])) }
    }

    // MARK: §3.5 sealed operations

    @Test(arguments: [PendingOperation.Kind.insert, .update])
    func updateBehindASealedOperationIsQueuedWithAProvisionalBase(kind: PendingOperation.Kind) throws {
        let sealed = Self.op(kind, sealed: true)
        let plan = try Self.record(.update(["text": "z"]), Self.history(item: Self.server, ops: [sealed]))
        #expect(plan.outcome == .queued(.update, sequence: 9))
        #expect(plan.writes.count == 1 && plan.writes[0].sequence == 9 && plan.removals.isEmpty)
        #expect(plan.writes[0].base == sealed.base)
        #expect(plan.receipts.isEmpty)
    }

    @Test(arguments: [PendingOperation.Kind.insert, .update])
    func deleteBehindASealedOperationIsQueuedNeverDropped(kind: PendingOperation.Kind) throws {
        let sealed = Self.op(kind, sealed: true)
        let plan = try Self.record(.delete, Self.history(item: Self.server, ops: [sealed]))
        #expect(plan.outcome == .queued(.delete, sequence: 9))
        #expect(plan.removals.isEmpty, "a possibly delivered insert is never dropped")
        #expect(plan.writes[0].kind == .delete && plan.item == nil)
    }

    @Test func laterChangesCollapseIntoTheUnsealedOperationBehindASealedOne() throws {
        let sealed = Self.op(.update, seq: 3, sealed: true)
        var local = Self.server
        local.fields["text"] = "z"
        let behind = PendingOperation(sequence: 4, table: "todoitem", id: "x", kind: .update, item: local, base: Self.server, queuedAt: Self.now)
        let plan = try Self.record(.update(["text": "w", "complete": false]), Self.history(item: local, ops: [sealed, behind]))
        #expect(plan.outcome == .collapsed(rule: "update+update", sequence: 4))
    }

    @Test func anOpenConflictRefusesEveryChange() {
        for change in [LocalChange.update(["text": "z"]), .delete, .insert(Self.newItem)] {
            #expect(throws: ChangeRefusal.conflictOpen("x")) {
                try Self.record(change, Self.history(item: Self.server, ops: [Self.op(.update)], conflict: true))
            }
        }
    }
}
