import Testing
import TodoModel
@testable import TodoSync

/// sync.md §4.7 "Outcome by response", one cell a case: the planner's step for an insert, an
/// update and a delete answered with each status (and the undelete step of a `restore` update).
/// The 409/412 cells are the §4.6 table's, tested row by row in `PushConflictTableTests`.
@Suite struct OutcomeByResponseTests {
    typealias F = PushFixtures

    static let sent = F.copy(["text": "a", "complete": false])
    static let changed = F.copy(["text": "b", "complete": false])
    static let redirect = SyncStop(.wrongURL(.redirect(status: 301, location: "https://h", remoteURL: "https://h"), remote: nil))
    static let noTable = SyncStop(.noTable("todoitem"))
    static let present = PushLookups(serverCopy: .success(nil), table: .present)

    static func auth(_ status: Int) -> PushStep {
        .decided(.stop(SyncStop(.refused(status: status, serverMessage: "bad token")), unsealed: true))
    }

    static func notAllowed(_ method: String) -> PushStep {
        .decided(.stop(SyncStop(.methodNotAllowed(method: method, table: "todoitem")), unsealed: true))
    }

    static func retry(_ status: Int, retryAfter: Double? = nil, _ stop: SyncStop) -> PushStep {
        .retry(PushRetry(failure: nil, retryAfter: retryAfter, mayHaveLanded: true, giveUp: .stop(stop, unsealed: false)))
    }

    static let busy = SyncStop(.serverTrouble(status: 503, serverMessage: "busy"))
    static let timedOut = TransportFailure.timedOut(seconds: 30, requestSent: true)
    static let refused = TransportFailure.cannotConnect(endpoint: "127.0.0.1:9", reason: "Connection refused")

    static let rows: [PlannerRow] = [
        // 2xx (200, 201, 204, any) | success (§4.5) | success | success
        PlannerRow("2xx | insert: success (§4.5)", F.insert(), .answer(F.reply(201, F.row(["text": "a", "complete": false]))),
                   .decided(.succeeded(server: sent, receipt: nil))),
        PlannerRow("2xx | update: success", F.update(), .answer(F.reply(200, F.row(["text": "b", "complete": false]))),
                   .decided(.succeeded(server: changed, receipt: nil))),
        PlannerRow("2xx | delete: success", F.delete(), .answer(F.reply(204)), .decided(.succeeded(server: nil, receipt: nil))),
        // 3xx | stop, exit 1: "the server redirected to <Location>; update the remote URL" | same | same
        PlannerRow("3xx | insert: stop, exit 1", F.insert(), .answered(F.reply(301), foreign: redirect), .decided(.stop(redirect, unsealed: true))),
        PlannerRow("3xx | update: same", F.update(), .answered(F.reply(302), foreign: redirect), .decided(.stop(redirect, unsealed: true))),
        PlannerRow("3xx | delete: same", F.delete(), .answered(F.reply(307), foreign: redirect), .decided(.stop(redirect, unsealed: true))),
        // 400, 413, 415, 422, and any other 4xx not listed below | rejection (§4.8.3) | rejection | rejection
        PlannerRow("400 | insert: rejection, S from a GET", F.insert(), .answer(F.error(400, "bad field")),
                   .look(.serverCopy)),
        PlannerRow("400 | insert: rejection (§4.8.3)", F.insert(), .answer(F.error(400, "bad field")), lookups: PushLookups(serverCopy: .success(nil)),
                   .decided(.reject(status: 400, message: "bad field", server: nil))),
        PlannerRow("413 | update: rejection", F.update(), .answer(F.error(413, "too large")), lookups: PushLookups(serverCopy: .success(sent)),
                   .decided(.reject(status: 413, message: "too large", server: sent))),
        PlannerRow("422 | delete: rejection", F.delete(), .answer(F.error(422, "no")), lookups: PushLookups(serverCopy: .success(sent)),
                   .decided(.reject(status: 422, message: "no", server: sent))),
        PlannerRow("any other 4xx (418) | insert: rejection", F.insert(), .answer(F.error(418, "teapot")),
                   lookups: PushLookups(serverCopy: .success(nil)), .decided(.reject(status: 418, message: "teapot", server: nil))),
        // 401, 403 | stop, exit 4 (authentication) | same | same
        PlannerRow("401 | insert: stop, exit 4 (authentication)", F.insert(), .answer(F.error(401, "bad token")), auth(401)),
        PlannerRow("403 | update: same", F.update(), .answer(F.error(403, "bad token")), auth(403)),
        PlannerRow("401 | delete: same", F.delete(), .answer(F.error(401, "bad token")), auth(401)),
        // 404 | table check (§4.8.4); table present → rejection | table check; table present → §4.6
        //     (changed here, deleted there) | success: already gone
        PlannerRow("404 | insert: table check (§4.8.4)", F.insert(), .answer(F.error(404, "not found")), .look(.table)),
        PlannerRow("404 | insert: table present → rejection", F.insert(), .answer(F.error(404, "not found")), lookups: present,
                   .decided(.reject(status: 404, message: "not found", server: nil))),
        PlannerRow("404 | update: table check", F.update(), .answer(F.error(404, "not found")), .look(.table)),
        PlannerRow("404 | update: table present → §4.6 (changed here, deleted there)", F.update(), .answer(F.error(404, "not found")),
                   lookups: present, .decided(.recordConflict(status: 404, message: nil, server: nil, fields: []))),
        PlannerRow("404 | delete: success: already gone", F.delete(), .answer(F.error(404, "not found")),
                   .decided(.succeeded(server: nil, receipt: nil))),
        // §4.8.4: 404 → the push stops with exit 1: "the server has no table '<table>'"
        PlannerRow("§4.8.4 table check 404 | insert: stop, exit 1", F.insert(), .answer(F.error(404, "not found")),
                   lookups: PushLookups(table: .absent), .decided(.stop(noTable, unsealed: true))),
        PlannerRow("§4.8.4 table check 404 | update: stop, exit 1", F.update(), .answer(F.error(404, "not found")),
                   lookups: PushLookups(table: .absent), .decided(.stop(noTable, unsealed: true))),
        // 405 | stop, exit 1: the server does not allow this operation on the table | same | same
        PlannerRow("405 | insert: stop, exit 1", F.insert(), .answer(F.reply(405)), notAllowed("POST")),
        PlannerRow("405 | update: same", F.update(), .answer(F.reply(405)), notAllowed("PATCH")),
        PlannerRow("405 | delete: same", F.delete(), .answer(F.reply(405)), notAllowed("DELETE")),
        // 408 | retry as a network failure | same | same
        PlannerRow("408 | insert: retry as a network failure", F.insert(), .answer(F.reply(408)),
                   retry(408, SyncStop(.requestTimedOut))),
        PlannerRow("408 | delete: same", F.delete(), .answer(F.reply(408)),
                   retry(408, SyncStop(.requestTimedOut))),
        // 410 | conflict: added here, deleted there | §4.6 (changed here, deleted there) | success
        PlannerRow("410 | insert: conflict: added here, deleted there", F.insert(), .answer(F.reply(410)),
                   lookups: PushLookups(serverCopy: .success(F.copy(["text": "a"], deleted: true))),
                   .decided(.recordConflict(status: 410, message: nil, server: F.copy(["text": "a"], deleted: true), fields: []))),
        PlannerRow("410 | update: §4.6 (changed here, deleted there)", F.update(), .answer(F.reply(410)),
                   lookups: PushLookups(serverCopy: .success(nil)), .decided(.recordConflict(status: 410, message: nil, server: nil, fields: []))),
        PlannerRow("410 | delete: success", F.delete(), .answer(F.reply(410)), .decided(.succeeded(server: nil, receipt: nil))),
        // 429 | retry, honouring `Retry-After`; then stop, exit 4 | same | same
        PlannerRow("429 | update: retry, honouring Retry-After; then stop, exit 4", F.update(),
                   .answer(F.reply(429, ["error": "slow down"], headers: [("Retry-After", "2")])),
                   retry(429, retryAfter: 2, SyncStop(.serverTrouble(status: 429, serverMessage: "slow down")))),
        // 500, 502, 503, 504, other 5xx | retry (replay check first); then stop, exit 4 | same | same
        PlannerRow("503 | insert: retry (replay check first); then stop, exit 4", F.insert(), .answer(F.error(503, "busy")), retry(503, busy)),
        PlannerRow("other 5xx (599) | delete: same", F.delete(), .answer(F.reply(599)),
                   retry(599, SyncStop(.serverTrouble(status: 599, serverMessage: nil)))),
        // network failure or timeout | retry (replay check first); then stop, exit 4 | same | same
        PlannerRow("timeout | update: retry (replay check first); then stop, exit 4, sealed", F.update(), .failed(timedOut),
                   .retry(PushRetry(failure: timedOut, retryAfter: nil, mayHaveLanded: true, giveUp: .stop(.network(timedOut), unsealed: false)))),
        // §3.5.4: a failure that proves nothing was sent clears the marker, unless an earlier attempt may have landed.
        PlannerRow("refused | insert: retry; then stop, exit 4, unsealed (§3.5.4)", F.insert(), .failed(refused),
                   .retry(PushRetry(failure: refused, retryAfter: nil, mayHaveLanded: false, giveUp: .stop(.network(refused), unsealed: true)))),
        PlannerRow("refused after a timeout | insert: stop stays sealed (§3.5.4)", F.insert(), .failed(refused), landed: true,
                   .retry(PushRetry(failure: refused, retryAfter: nil, mayHaveLanded: false, giveUp: .stop(.network(refused), unsealed: false)))),
        PlannerRow("401 after a timeout | update: stop stays sealed (§3.5.4)", F.update(), .answer(F.error(401, "bad token")), landed: true,
                   .decided(.stop(SyncStop(.refused(status: 401, serverMessage: "bad token")), unsealed: false))),
    ]

    @Test("§4.7 outcome by response", arguments: rows) func outcome(_ row: PlannerRow) {
        #expect(row.planned == row.expected, "\(row.spec)")
    }

    // MARK: Undelete step of a `restore` update

    static let restore = F.update(restore: true)
    static let restored = F.copy(["text": "a", "complete": false], version: "v3")
    static let theirs = F.copy(["text": "c", "complete": false], version: "v3")

    static let undeleteRows: [PlannerRow] = [
        PlannerRow("undelete 2xx → §4.5 (base := S, restore := false, the PATCH follows)", restore,
                   .answer(F.reply(200, F.row(["text": "a", "complete": false], version: "v3"))),
                   .decided(.sendAgain(F.with(restore, base: .some(restored), restore: false), receipt: nil, merged: false))),
        PlannerRow("undelete 404 → the row is gone for good: the op becomes an insert", restore, .answer(F.reply(404)),
                   .decided(.sendAgain(F.with(restore, base: .some(nil), restore: false, kind: .insert), receipt: nil, merged: false))),
        PlannerRow("undelete 409 or 412 → conflict with S", restore,
                   .answer(F.reply(409, F.row(["text": "c", "complete": false], version: "v3"))),
                   .decided(.recordConflict(status: 409, message: nil, server: theirs, fields: ["text"]))),
        PlannerRow("undelete 412 → conflict with S (S from the query)", restore, .answer(F.reply(412)),
                   lookups: PushLookups(serverCopy: .success(theirs)),
                   .decided(.recordConflict(status: 412, message: nil, server: theirs, fields: ["text"]))),
        PlannerRow("undelete 400 → rejection", restore, .answer(F.error(400, "bad")), lookups: PushLookups(serverCopy: .success(nil)),
                   .decided(.reject(status: 400, message: "bad", server: nil))),
        PlannerRow("undelete: everything else as in the update column (403)", restore, .answer(F.error(403, "bad token")), auth(403)),
        PlannerRow("undelete: everything else as in the update column (405: the undelete is a POST)", restore, .answer(F.reply(405)),
                   notAllowed("POST")),
        PlannerRow("undelete 2xx whose server copy cannot be read: stop, sealed (only a replay check can tell)", restore,
                   .answer(F.reply(200)), lookups: PushLookups(serverCopy: .failure(.network(timedOut))),
                   .decided(.stop(SyncStop(.undeleteUnread(id: restore.id)), unsealed: false))),
    ]

    @Test("§4.7 undelete step of a restore update", arguments: undeleteRows) func undelete(_ row: PlannerRow) {
        #expect(row.planned == row.expected, "\(row.spec)")
    }

    // MARK: §4.5.1 where S comes from

    static let successRows: [PlannerRow] = [
        PlannerRow("§4.5.1 the body holds no item (an empty 200 or 201): the push GETs the item", F.insert(), .answer(F.reply(201)),
                   .look(.serverCopy)),
        PlannerRow("§4.5.1 … S from the GET", F.insert(), .answer(F.reply(201)), lookups: PushLookups(serverCopy: .success(sent)),
                   .decided(.succeeded(server: sent, receipt: nil))),
        PlannerRow("§4.5.1 if that GET fails, S is what was sent, without system properties", F.insert(), .answer(F.reply(201)),
                   lookups: PushLookups(serverCopy: .failure(.network(timedOut))),
                   .decided(.succeeded(server: F.insert().item.userCopy, receipt: nil))),
        PlannerRow("§4.5.1 a field sent but missing from the body is taken from what was sent", F.update(),
                   .answer(F.reply(200, F.row(["text": "b"]))), .decided(.succeeded(server: changed, receipt: nil))),
        PlannerRow("integer ids: a 2xx may have stored a row, the op stays sealed", F.insert(),
                   .answer(F.reply(201, ["id": 7, "text": "a"])),
                   .decided(.stop(SyncStop(.integerIDs(table: "todoitem", status: 201)),
                                  unsealed: false))),
    ]

    @Test("§4.5.1 the server copy of a success", arguments: successRows) func success(_ row: PlannerRow) {
        #expect(row.planned == row.expected, "\(row.spec)")
    }
}
