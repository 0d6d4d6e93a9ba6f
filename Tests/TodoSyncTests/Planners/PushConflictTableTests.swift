import Testing
import TodoModel
@testable import TodoSync

/// sync.md §4.6, conflicts on push, one row a case: the planner's step for a 409 or 412, with S
/// from the body when it has a version of its own (§4.6.1), else from the one-row query.
@Suite struct PushConflictTableTests {
    typealias F = PushFixtures

    static func found(_ s: Item?) -> PushLookups { PushLookups(serverCopy: .success(s)) }
    /// A 409/412 whose body is S (with a version, so trusted).
    static func refused(_ status: Int, _ fields: [String: JSONValue], deleted: Bool = false) -> PushPlanner.Event {
        .answer(F.reply(status, F.row(fields, deleted: deleted)))
    }

    static let same = F.copy(["text": "a", "complete": false])
    static let other = F.copy(["text": "other", "complete": false])
    static let gone = F.copy(["text": "a", "complete": false], deleted: true)
    static let holdsUpdate = F.copy(["text": "b", "complete": false])
    static let already = F.copy(["text": "b", "complete": true])
    static let clash = F.copy(["text": "c", "complete": false])

    static let theirs = F.theirs
    static let merged = F.mergedWithTheirs

    static let rows: [PlannerRow] = [
        // §4.6.1: the body is not trusted without a version of its own.
        PlannerRow("§4.6.1 a body without a version is not trusted: S comes from the one-row query", F.insert(),
                   .answer(F.reply(409, F.row(["text": "a", "complete": false], version: nil))), .look(.serverCopy)),
        PlannerRow("§4.6.1 if the query fails, the push stops; nothing applied, the op is unsealed", F.update(), .answer(F.reply(412)),
                   lookups: PushLookups(serverCopy: .failure(.network(.cannotConnect(endpoint: "h:1", reason: "refused")))),
                   .decided(.stop(.network(.cannotConnect(endpoint: "h:1", reason: "refused")), unsealed: true))),
        // §4.6.2 Decisions:
        PlannerRow("insert | live, equal to item | success with S (a replayed insert); receipt replay insert-exists", F.insert(),
                   refused(409, ["text": "a", "complete": false]), .decided(.succeeded(server: same, receipt: .init(.replay, "insert-exists")))),
        PlannerRow("insert | live, different | conflict: added on both sides", F.insert(), refused(409, ["text": "other", "complete": false]),
                   .decided(.recordConflict(status: 409, message: nil, server: other, fields: ["text"]))),
        PlannerRow("insert | deleted | conflict: added here, deleted there", F.insert(), .answer(F.reply(409)), lookups: found(gone),
                   .decided(.recordConflict(status: 409, message: nil, server: gone, fields: []))),
        PlannerRow("insert | absent (answered 409, then the GET found nothing) | look again ignoring the id's case", F.insert(),
                   .answer(F.reply(409)), lookups: found(nil), .look(.serverCopyIgnoringCase)),
        PlannerRow("insert | absent (answered 409, then the GET found nothing) | send the insert again", F.insert(), .answer(F.reply(409)),
                   lookups: PushLookups(serverCopy: .success(nil), serverCopyIgnoringCase: .success(nil)),
                   .decided(.sendAgain(F.insert(), receipt: nil, merged: false))),
        PlannerRow("insert | absent | … once: a second time is a conflict", F.insert(), .answer(F.reply(409)), insertedAgain: true,
                   lookups: PushLookups(serverCopy: .success(nil), serverCopyIgnoringCase: .success(nil)),
                   .decided(.recordConflict(status: 409, message: "the server reports the id as taken but has no such row", server: nil, fields: []))),
        PlannerRow("update | live, holds the change | success with S; receipt replay update-applied", F.update(),
                   refused(412, ["text": "b", "complete": false]),
                   .decided(.succeeded(server: holdsUpdate, receipt: .init(.replay, "update-applied")))),
        PlannerRow("update | live, otherwise, only op | a clean merge equal to S: success with S, receipt absorb", F.update(),
                   refused(412, ["text": "b", "complete": true]), .decided(.succeeded(server: already, receipt: .init(.absorb, "push")))),
        PlannerRow("update | live, otherwise, only op | any other clean merge is an auto-merge, sent again at once", F.update(),
                   refused(412, ["text": "a", "complete": true]), merged),
        PlannerRow("update | live, otherwise, only op | a clash is a conflict: changed on both sides, the clashing fields", F.update(),
                   refused(409, ["text": "c", "complete": false]),
                   .decided(.recordConflict(status: 409, message: nil, server: clash, fields: ["text"]))),
        PlannerRow("update | live, otherwise, and later ops exist | conflict: changed on both sides", F.update(),
                   refused(412, ["text": "a", "complete": true]), onlyOp: false,
                   .decided(.recordConflict(status: 412, message: nil, server: theirs, fields: []))),
        PlannerRow("update | deleted | conflict: changed here, deleted there", F.update(), refused(412, ["text": "a", "complete": false], deleted: true),
                   .decided(.recordConflict(status: 412, message: nil, server: gone, fields: []))),
        PlannerRow("update | absent | conflict: changed here, deleted there", F.update(), .answer(F.reply(412)), lookups: found(nil),
                   .decided(.recordConflict(status: 412, message: nil, server: nil, fields: []))),
        PlannerRow("delete | deleted | success: gone on both sides; receipt both-deleted", F.delete(), .answer(F.reply(412)),
                   lookups: found(gone), .decided(.succeeded(server: nil, receipt: .init(.bothDeleted, "push")))),
        PlannerRow("delete | absent | success: gone on both sides; receipt both-deleted", F.delete(), .answer(F.reply(409)),
                   lookups: found(nil), .decided(.succeeded(server: nil, receipt: .init(.bothDeleted, "push")))),
        PlannerRow("delete | live | conflict: deleted here, changed there", F.delete(), refused(412, ["text": "a", "complete": true]),
                   .decided(.recordConflict(status: 412, message: nil, server: theirs, fields: []))),
        // §4.6.3 An op is auto-merged and resent at most 3 times in one push.
        PlannerRow("§4.6.3 a third auto-merge is still sent", F.update(), refused(412, ["text": "a", "complete": true]), merges: 2, merged),
        PlannerRow("§4.6.3 a fourth 409/412 records a conflict (empty fields when nothing clashes)", F.update(),
                   refused(412, ["text": "a", "complete": true]), merges: 3,
                   .decided(.recordConflict(status: 412, message: nil, server: theirs, fields: []))),
    ]

    @Test("§4.6 conflicts on push", arguments: rows) func conflict(_ row: PlannerRow) {
        #expect(row.planned == row.expected, "\(row.spec)")
    }
}
