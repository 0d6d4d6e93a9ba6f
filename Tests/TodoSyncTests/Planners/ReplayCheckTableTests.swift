import Testing
import TodoModel
@testable import TodoSync

/// sync.md §4.4.2, the replay check of a sealed op, one row a case: the planner's step given the
/// server copy S the one-row query found (nil: absent).
@Suite struct ReplayCheckTableTests {
    typealias F = PushFixtures

    static func found(_ s: Item?) -> PushLookups { PushLookups(serverCopy: .success(s)) }

    static let same = F.copy(["text": "a", "complete": false])
    static let other = F.copy(["text": "other", "complete": false])
    static let gone = F.copy(["text": "a", "complete": false], deleted: true)
    static let atBase = F.copy(["text": "a", "complete": false], version: "v1")
    static let holdsUpdate = F.copy(["text": "b", "complete": false])
    static let clash = F.copy(["text": "c", "complete": false])
    static let goneAtBase = F.copy(["text": "a", "complete": false], version: "v1", deleted: true)
    static let restored = F.copy(["text": "a", "complete": false], version: "v3")
    static let lost = SyncStop.network(.connectionLost(reason: "reset by peer", requestSent: true))

    static let theirs = F.theirs
    static let merged = F.mergedWithTheirs

    static let rows: [PlannerRow] = [
        // 1. Fetch the server copy with the one-row query … If the network fails, the push stops
        //    (exit 4) and the op stays sealed.
        PlannerRow("1. fetch the server copy with the one-row query", F.insert(), .replayCheck, .look(.serverCopy)),
        PlannerRow("1. if the network fails, the push stops (exit 4) and the op stays sealed", F.update(), .replayCheck,
                   lookups: PushLookups(serverCopy: .failure(lost)), .decided(.stop(lost, unsealed: false))),
        // 2. Decide from the server copy S (absent on a 404):
        PlannerRow("insert | absent | not delivered: send normally", F.insert(), .replayCheck, lookups: found(nil), .send),
        PlannerRow("insert | live, equal to item | delivered: success with S; receipt replay insert-exists", F.insert(), .replayCheck,
                   lookups: found(same), .decided(.succeeded(server: same, receipt: .init(.replay, "insert-exists")))),
        PlannerRow("insert | live, different | conflict: added on both sides, status 409", F.insert(), .replayCheck,
                   lookups: found(other), .decided(.recordConflict(status: 409, message: nil, server: other, fields: ["text"]))),
        PlannerRow("insert | deleted | conflict: added here, deleted there, status 409", F.insert(), .replayCheck,
                   lookups: found(gone), .decided(.recordConflict(status: 409, message: nil, server: gone, fields: []))),
        PlannerRow("update | live, ms_version = base version | not delivered: send normally", F.update(), .replayCheck,
                   lookups: found(atBase), .send),
        PlannerRow("update | live, holds the change | delivered: success with S; receipt replay update-applied", F.update(), .replayCheck,
                   lookups: found(holdsUpdate), .decided(.succeeded(server: holdsUpdate, receipt: .init(.replay, "update-applied")))),
        PlannerRow("update | live, otherwise | handled as a 412 (§4.6): a clean merge is sent again", F.update(), .replayCheck,
                   lookups: found(theirs), merged),
        PlannerRow("update | live, otherwise | handled as a 412 (§4.6): a clash is a conflict", F.update(), .replayCheck,
                   lookups: found(clash), .decided(.recordConflict(status: 412, message: nil, server: clash, fields: ["text"]))),
        PlannerRow("update | deleted | handled as a 404 on update (§4.6)", F.update(), .replayCheck,
                   lookups: found(gone), .decided(.recordConflict(status: 404, message: nil, server: gone, fields: []))),
        PlannerRow("update | absent | handled as a 404 on update (§4.6)", F.update(), .replayCheck,
                   lookups: found(nil), .decided(.recordConflict(status: 404, message: nil, server: nil, fields: []))),
        PlannerRow("update, restore step | deleted, version = base version | not delivered: send the undelete",
                   F.update(restore: true), .replayCheck, lookups: found(goneAtBase), .send),
        PlannerRow("update, restore step | live, user fields equal the base's | the undelete landed: base := S, restore := false",
                   F.update(restore: true), .replayCheck, lookups: found(restored),
                   .decided(.sendAgain(F.with(F.update(restore: true), base: .some(restored), restore: false), receipt: nil, merged: false))),
        PlannerRow("update, restore step | otherwise | conflict with S, status 412", F.update(restore: true), .replayCheck,
                   lookups: found(clash), .decided(.recordConflict(status: 412, message: nil, server: clash, fields: []))),
        PlannerRow("delete | deleted | delivered (or moot): success; receipt replay delete-gone", F.delete(), .replayCheck,
                   lookups: found(gone), .decided(.succeeded(server: nil, receipt: .init(.replay, "delete-gone")))),
        PlannerRow("delete | absent | delivered (or moot): success; receipt replay delete-gone", F.delete(), .replayCheck,
                   lookups: found(nil), .decided(.succeeded(server: nil, receipt: .init(.replay, "delete-gone")))),
        PlannerRow("delete | live, version = base version | not delivered: send normally", F.delete(), .replayCheck,
                   lookups: found(atBase), .send),
        PlannerRow("delete | live, otherwise | conflict: deleted here, changed there, status 412", F.delete(), .replayCheck,
                   lookups: found(theirs), .decided(.recordConflict(status: 412, message: nil, server: theirs, fields: []))),
    ]

    @Test("§4.4.2 replay check", arguments: rows) func replay(_ row: PlannerRow) {
        #expect(row.planned == row.expected, "\(row.spec)")
    }
}
