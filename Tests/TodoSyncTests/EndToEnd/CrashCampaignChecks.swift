import TodoBasics
import TodoModel
import TodoTestSupport

/// The checks: after network commands, and at the end once everyone is quiet.
extension CrashCampaign {
    /// Every row of the server, deleted ones included; an id twice (ignoring case) fails.
    func serverState() -> [String: WriteLedger.ServerRow] {
        let reply = server.http("GET", "/tables/todoitem?__includeDeleted=true&$top=1000", headers: [("ZUMO-API-VERSION", "2.0.0")])
        guard reply.status == 200, let rows = reply.json?.arrayValue, rows.count < 1000 else {
            fail("GET of the server's rows: \(reply.status), \(reply.json?.arrayValue?.count ?? -1) rows")
            return [:]
        }
        let state = WriteLedger.serverState(rows.compactMap(\.objectValue))
        state.failures.forEach(fail)
        return state.rows
    }

    /// No id twice on the server, and a row the server deleted comes back live only when a
    /// resolution chose a client copy over it: each such resolution licenses one return.
    @discardableResult
    func checkServer() -> [String: WriteLedger.ServerRow] {
        let server = serverState()
        ledger.checkDeletions(server, step: step).forEach(fail)
        return server
    }

    /// After a completed pull, every item with no pending op and no conflict holds exactly the
    /// server's row, and an item the server deleted is gone (sync.md §5.5).
    func checkMirrorsServer(_ r: Int) {
        let server = serverState()
        let busy = Set((operations(r) + conflicts(r)).map { WriteLedger.key($0["id"]?.stringValue ?? "") })
        let local = items(r)
        for key in Set(local.keys).union(server.keys).sorted() where !busy.contains(key) {
            let expected = server[key].flatMap { $0.deleted ? nil : $0.fields }
            if local[key] != expected {
                fail("\(names[r]) after pull: item \(key) is \(show(local[key])), the server's is \(show(expected))")
            }
        }
    }

    /// The end: everyone syncs and resolves until a round begins with nothing queued anywhere
    /// (from the third round on with --use-server, so that it ends); then every replica holds
    /// exactly the server's live items, `todo doctor` is clean, every acknowledged write is on
    /// the server, in a receipt's lost values, or superseded, and every acknowledged `rm` holds.
    func finale() {
        step += 1
        var round = 0
        while failures.isEmpty {
            let quiet = names.indices.allSatisfy { operations($0).isEmpty && conflicts($0).isEmpty }
            for r in names.indices where failures.isEmpty {
                let held = !conflicts(r).isEmpty
                finished(r, .sync, run(r, ["sync"], expect: [0, 3]), held: held)
                while failures.isEmpty && !conflicts(r).isEmpty { resolveOne(r, kind: nil, forceServer: round >= 2) }
                checkServer()
            }
            if quiet { break }
            round += 1
            if round > 8 { return fail("not quiet after 8 rounds of resolve and sync") }
        }
        guard failures.isEmpty else { return }
        let server = checkServer()
        var live: [String: [String: JSONValue]] = [:]
        for (key, row) in server where !row.deleted { live[key] = row.fields }
        for r in names.indices {
            run(r, ["doctor"], expect: [0])
            if items(r) != live { fail("\(names[r]) holds \(items(r).count) items unlike the server's \(live.count) live rows: \(difference(items(r), live))") }
            if !operations(r).isEmpty || !conflicts(r).isEmpty { fail("\(names[r]) is not quiet") }
        }
        checkWrites(server)
        checkRemovals(server)
    }

    func difference(_ a: [String: [String: JSONValue]], _ b: [String: [String: JSONValue]]) -> String {
        Set(a.keys).union(b.keys).sorted().filter { a[$0] != b[$0] }.prefix(3)
            .map { "\($0): \(show(a[$0])) vs \(show(b[$0]))" }.joined(separator: "; ")
    }

    /// Every acknowledged write is on the server's live row, in a receipt's lost values (any
    /// replica, either side: sync.md §9.1), or superseded by a later change that saw it.
    func checkWrites(_ server: [String: WriteLedger.ServerRow]) {
        let lost = names.indices.flatMap { receipts($0) }.compactMap { receipt -> (String, [String: JSONValue])? in
            guard let id = receipt["id"]?.stringValue, let sides = receipt["lost"]?.objectValue else { return nil }
            return (WriteLedger.key(id), (sides["client"]?.objectValue ?? [:]).merging(sides["server"]?.objectValue ?? [:]) { a, _ in a })
        }
        let lostValues = Set(lost.flatMap { id, fields in fields.map { "\(id) \($0.key) \($0.value.compactText)" } })
        for write in ledger.writes {
            if WriteLedger.onServer(write, server) { continue }
            if lostValues.contains("\(write.id) \(write.field) \(write.value.compactText)") { continue }
            if ledger.superseded(write) { continue }
            return fail("\(names[write.replica]) wrote \(write.field) = \(write.value.compactText) on \(write.id) at step \(write.step) (\(write.command)); it is on no live server row, in no receipt, and no later change replaced it")
        }
    }

    /// Every acknowledged `rm` holds: the server's row is not live, unless a later add of the id,
    /// a resolution that restored it (decided after the rm, or landing after it), or a later
    /// resolution by the remover itself (its receipt says what it kept) brought it back.
    func checkRemovals(_ server: [String: WriteLedger.ServerRow]) {
        for removal in ledger.removalsUndone(server) {
            let mark = removal.receiptMark ?? 0
            if receipts(removal.replica).contains(where: { receipt in
                (receipt["number"]?.numberValue).map { Int($0) > mark } == true
                    && receipt["decision"]?.stringValue == "resolve"
                    && WriteLedger.key(receipt["id"]?.stringValue ?? "") == removal.id
            }) { continue }
            fail("\(names[removal.replica]) removed \(removal.id) at step \(removal.step), and it is live on the server with no add, restore or resolution after it")
        }
    }
}
