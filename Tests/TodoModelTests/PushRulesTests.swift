import Testing
@testable import TodoModel

/// sync.md §4.4.2 (the replay check) and §4.6.2 (409, 412, 404 on update, 410): one test per
/// row of each table, on the copies of the tutorial item.
@Suite struct PushRulesTests {
    // MARK: Copies

    static let v1 = SystemProperties(createdAt: "2024-05-01T09:00:00.000Z", updatedAt: "2024-05-01T09:00:00.000Z", version: "v1")
    static let v2 = SystemProperties(createdAt: "2024-05-01T09:00:00.000Z", updatedAt: "2024-05-02T08:12:00.000Z", version: "v2")

    static func server(_ fields: [String: JSONValue], _ system: SystemProperties = v2, deleted: Bool = false) -> Item {
        var system = system
        system.deleted = deleted
        return Item(id: "x", fields: fields, system: system)
    }

    /// The server copy the local change started from: `{text: a, complete: false}` at v1.
    static let base = server(["text": "a", "complete": false], v1)

    static func insert(_ fields: [String: JSONValue] = ["text": "a", "complete": false]) -> PendingOperation {
        PendingOperation(sequence: 1, table: "todoitem", id: "x", kind: .insert, item: Item(id: "x", fields: fields), base: nil,
                         attempted: true, queuedAt: "2024-05-01T09:00:00.000Z")
    }

    static func update(_ fields: [String: JSONValue] = ["text": "b", "complete": false], restore: Bool = false,
                       base: Item = base) -> PendingOperation {
        PendingOperation(sequence: 2, table: "todoitem", id: "x", kind: .update, item: Item(id: "x", fields: fields), base: base,
                         attempted: true, restore: restore, queuedAt: "2024-05-01T09:00:00.000Z")
    }

    static func delete() -> PendingOperation {
        PendingOperation(sequence: 3, table: "todoitem", id: "x", kind: .delete, item: base.userCopy, base: base,
                         attempted: true, queuedAt: "2024-05-01T09:00:00.000Z")
    }

    static func replay(_ op: PendingOperation, _ s: Item?, onlyOp: Bool = true) -> PushRules.Verdict {
        PushRules.replay(op, server: s, onlyOp: onlyOp)
    }

    static func after(_ op: PendingOperation, _ s: Item?, onlyOp: Bool = true, status: Int = 412) -> PushRules.Verdict {
        PushRules.afterConflictStatus(op, server: s, onlyOp: onlyOp, status: status)
    }

    // MARK: §4.4.2 insert

    @Test func replayInsertAbsentSends() {
        #expect(Self.replay(Self.insert(), nil) == .send)
    }

    @Test func replayInsertLiveEqualIsDelivered() {
        let s = Self.server(["text": "a", "complete": false])
        #expect(Self.replay(Self.insert(), s) == .succeeded(server: s, receipt: .init(.replay, "insert-exists")))
    }

    @Test func replayInsertLiveDifferentIsAddedOnBothSides() {
        let s = Self.server(["text": "other", "complete": false])
        #expect(Self.replay(Self.insert(), s) == .conflict(status: 409, fields: ["text"]))
        // Different without a clash (a field only one side set) is still a conflict, with no fields.
        #expect(Self.replay(Self.insert(), Self.server(["text": "a", "complete": false, "note": "n"])) == .conflict(status: 409, fields: []))
    }

    @Test func replayInsertDeletedIsAddedHereDeletedThere() {
        #expect(Self.replay(Self.insert(), Self.server(["text": "a", "complete": false], deleted: true)) == .conflict(status: 409, fields: []))
    }

    // MARK: §4.4.2 update

    @Test func replayUpdateAtBaseVersionSends() {
        #expect(Self.replay(Self.update(), Self.server(["text": "a", "complete": false], Self.v1)) == .send)
    }

    @Test func replayUpdateHeldIsDelivered() {
        let s = Self.server(["text": "b", "complete": false])
        #expect(Self.replay(Self.update(), s) == .succeeded(server: s, receipt: .init(.replay, "update-applied")))
        // A removed field is part of the change: S holds it only when the field is gone there too.
        let removal = Self.update(["text": "a"])
        let gone = Self.server(["text": "a"])
        #expect(Self.replay(removal, gone) == .succeeded(server: gone, receipt: .init(.replay, "update-applied")))
        #expect(Self.replay(removal, Self.server(["text": "a", "complete": true])) == .conflict(status: 412, fields: ["complete"]))
    }

    @Test func replayUpdateOtherwiseIsA412() {
        // A clash: changed on both sides.
        #expect(Self.replay(Self.update(), Self.server(["text": "c", "complete": false])) == .conflict(status: 412, fields: ["text"]))
        // Disjoint: merged exactly as a 412 would be.
        let s = Self.server(["text": "a", "complete": true])
        #expect(Self.replay(Self.update(), s)
                == .merged(fields: ["text": "b", "complete": true], fromClient: ["text"], fromServer: ["complete"], server: s))
    }

    @Test func replayUpdateDeletedOrAbsentIsA404() {
        #expect(Self.replay(Self.update(), Self.server(["text": "a", "complete": false], deleted: true)) == .conflict(status: 404, fields: []))
        #expect(Self.replay(Self.update(), nil) == .conflict(status: 404, fields: []))
    }

    // MARK: §4.4.2 restore step

    @Test func replayRestoreDeletedAtBaseVersionSendsTheUndelete() {
        let deletedBase = Self.server(["text": "a", "complete": false], Self.v1, deleted: true)
        let op = Self.update(restore: true, base: deletedBase)
        #expect(Self.replay(op, Self.server(["text": "a", "complete": false], Self.v1, deleted: true)) == .send)
    }

    @Test func replayRestoreLiveWithBaseFieldsLanded() {
        let deletedBase = Self.server(["text": "a", "complete": false], Self.v1, deleted: true)
        let op = Self.update(restore: true, base: deletedBase)
        let s = Self.server(["text": "a", "complete": false])
        #expect(Self.replay(op, s) == .restoreLanded(server: s))
    }

    @Test func replayRestoreOtherwiseConflicts() {
        let deletedBase = Self.server(["text": "a", "complete": false], Self.v1, deleted: true)
        let op = Self.update(restore: true, base: deletedBase)
        // Deleted again at another version, live with other fields, or gone for good.
        #expect(Self.replay(op, Self.server(["text": "a", "complete": false], deleted: true)) == .conflict(status: 412, fields: []))
        #expect(Self.replay(op, Self.server(["text": "z", "complete": false])) == .conflict(status: 412, fields: []))
        #expect(Self.replay(op, nil) == .conflict(status: 412, fields: []))
    }

    // MARK: §4.4.2 delete

    @Test func replayDeleteGoneIsDelivered() {
        let receipt = PushRules.ReceiptKind(.replay, "delete-gone")
        #expect(Self.replay(Self.delete(), Self.server(["text": "a"], deleted: true)) == .succeeded(server: nil, receipt: receipt))
        #expect(Self.replay(Self.delete(), nil) == .succeeded(server: nil, receipt: receipt))
    }

    @Test func replayDeleteAtBaseVersionSends() {
        #expect(Self.replay(Self.delete(), Self.server(["text": "a", "complete": false], Self.v1)) == .send)
    }

    @Test func replayDeleteLiveOtherwiseConflicts() {
        #expect(Self.replay(Self.delete(), Self.server(["text": "c", "complete": false])) == .conflict(status: 412, fields: []))
    }

    // MARK: §4.6.2 insert

    @Test func conflictInsertLiveEqualIsAReplay() {
        let s = Self.server(["text": "a", "complete": false])
        #expect(Self.after(Self.insert(), s, status: 409) == .succeeded(server: s, receipt: .init(.replay, "insert-exists")))
    }

    @Test func conflictInsertLiveDifferentIsAddedOnBothSides() {
        #expect(Self.after(Self.insert(), Self.server(["text": "c", "complete": false]), status: 409) == .conflict(status: 409, fields: ["text"]))
    }

    @Test func conflictInsertDeletedIsAddedHereDeletedThere() {
        #expect(Self.after(Self.insert(), Self.server(["text": "a"], deleted: true), status: 410) == .conflict(status: 410, fields: []))
    }

    @Test func conflictInsertAbsentSendsAgain() {
        #expect(Self.after(Self.insert(), nil, status: 409) == .insertAgain)
    }

    // MARK: §4.6.2 update

    @Test func conflictUpdateHeldIsAReplay() {
        let s = Self.server(["text": "b", "complete": false])
        #expect(Self.after(Self.update(), s) == .succeeded(server: s, receipt: .init(.replay, "update-applied")))
        // Also when later ops exist: the change is there, whatever follows.
        #expect(Self.after(Self.update(), s, onlyOp: false) == .succeeded(server: s, receipt: .init(.replay, "update-applied")))
    }

    @Test func conflictUpdateCleanMergeEqualToServerIsAbsorbed() {
        // The client's text is already there, and the server also completed the item.
        let s = Self.server(["text": "b", "complete": true])
        #expect(Self.after(Self.update(), s) == .succeeded(server: s, receipt: .init(.absorb, "push")))
    }

    @Test func conflictUpdateCleanMergeIsAnAutoMerge() {
        let s = Self.server(["text": "a", "complete": true])
        #expect(Self.after(Self.update(), s, status: 409)
                == .merged(fields: ["text": "b", "complete": true], fromClient: ["text"], fromServer: ["complete"], server: s))
    }

    @Test func conflictUpdateClashListsTheFields() {
        #expect(Self.after(Self.update(["text": "b", "complete": true]), Self.server(["text": "c", "complete": true]))
                == .conflict(status: 412, fields: ["text"]))
    }

    @Test func conflictUpdateWithLaterOpsIsAConflict() {
        #expect(Self.after(Self.update(), Self.server(["text": "a", "complete": true]), onlyOp: false) == .conflict(status: 412, fields: []))
        #expect(Self.after(Self.update(), Self.server(["text": "c", "complete": false]), onlyOp: false, status: 409)
                == .conflict(status: 409, fields: ["text"]))
    }

    @Test func conflictUpdateWithTheServerStillAtTheBaseIsNotMerged() {
        // A 404/410 while the GET still shows the base: resending the same PATCH cannot help.
        #expect(Self.after(Self.update(), Self.server(["text": "a", "complete": false], Self.v1), status: 410)
                == .conflict(status: 410, fields: []))
    }

    @Test func conflictUpdateDeletedOrAbsentIsChangedHereDeletedThere() {
        #expect(Self.after(Self.update(), Self.server(["text": "a"], deleted: true), status: 410) == .conflict(status: 410, fields: []))
        #expect(Self.after(Self.update(), nil, status: 404) == .conflict(status: 404, fields: []))
    }

    // MARK: §4.6.2 delete

    @Test func conflictDeleteGoneIsBothDeleted() {
        let receipt = PushRules.ReceiptKind(.bothDeleted, "push")
        #expect(Self.after(Self.delete(), Self.server(["text": "a"], deleted: true)) == .succeeded(server: nil, receipt: receipt))
        #expect(Self.after(Self.delete(), nil) == .succeeded(server: nil, receipt: receipt))
    }

    @Test func conflictDeleteLiveIsDeletedHereChangedThere() {
        #expect(Self.after(Self.delete(), Self.server(["text": "c", "complete": false])) == .conflict(status: 412, fields: []))
    }

    // MARK: Helpers

    @Test func sameVersionUsesTheVersionElseTimeAndFields() {
        #expect(PushRules.sameVersion(Self.base, Self.server(["text": "other"], Self.v1)))
        #expect(!PushRules.sameVersion(Self.base, Self.server(["text": "a", "complete": false])))
        #expect(!PushRules.sameVersion(nil, Self.base))
        let unversioned = SystemProperties(updatedAt: "2024-05-01T09:00:00.000Z")
        let a = Self.server(["text": "a"], unversioned)
        #expect(PushRules.sameVersion(a, Self.server(["text": "a"], unversioned)))
        #expect(!PushRules.sameVersion(a, Self.server(["text": "b"], unversioned)))
    }

    @Test func numbersCompareAsDoubles() {
        // A server that rounds or respells a number (1 vs 1.0) still holds the change.
        let op = Self.update(["text": "a", "complete": false, "priority": 1])
        #expect(Self.replay(op, Self.server(["text": "a", "complete": false, "priority": 1.0]))
                == .succeeded(server: Self.server(["text": "a", "complete": false, "priority": 1.0]), receipt: .init(.replay, "update-applied")))
    }
}
