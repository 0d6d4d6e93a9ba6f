import TodoBasics
import TodoModel
import TodoTestSupport

/// The invariants, checked after every step and at the end of a run.
extension SimRun {
    /// The server's rows by id key: user fields, and whether the row is deleted.
    func serverState() -> [String: WriteLedger.ServerRow] {
        let state = WriteLedger.serverState(world.allRows())
        state.failures.forEach(fail)
        return state.rows
    }

    /// After every step: no id twice (server and the touched replica), `todo doctor` clean on the
    /// touched replica (the others did not change), new receipts stamped with the step, deleted
    /// items back only by a restore licence, and every acknowledged value accounted for.
    func checkAfterStep(touched r: Int) {
        let server = serverState()
        checkReplicaShape(r)
        run(r, ["doctor"], expect: [0])
        collectReceipts(r)
        checkDeletions(server)
        checkWrites(server, final: false)
    }

    /// One item per id (ignoring case) and at most one conflict per id.
    func checkReplicaShape(_ r: Int) {
        var seen: Set<String> = []
        for item in replicas[r].items {
            let key = WriteLedger.key(item["id"]?.stringValue ?? "")
            if !seen.insert(key).inserted { fail("\(replicas[r].name) holds item \(key) twice") }
        }
        var conflicts: Set<String> = []
        for conflict in replicas[r].conflicts {
            let key = WriteLedger.key(conflict["id"]?.stringValue ?? "")
            if !conflicts.insert(key).inserted { fail("\(replicas[r].name) has two conflicts for \(key)") }
        }
    }

    /// Receipts are never removed and only added; each is stamped with the step it appeared in.
    func collectReceipts(_ r: Int) {
        let all = replicas[r].receipts
        let known = receipts.counts[r, default: 0]
        if all.count < known { fail("\(replicas[r].name): receipts disappeared (\(known) → \(all.count))") }
        for record in all.dropFirst(known) { receipts.all.append(.init(replica: r, step: step, record: record)) }
        receipts.counts[r] = all.count
    }

    /// A row the server deleted comes back only when a resolution chose a client copy over the
    /// deleted (or absent) server copy: each such resolution licenses one return (sync.md §8.5).
    func checkDeletions(_ server: [String: WriteLedger.ServerRow]) {
        ledger.checkDeletions(server, step: step).forEach(fail)
    }

    /// After a completed pull, every item with no pending op and no conflict holds exactly the
    /// server's row, and an item the server deleted is gone (§5.5): nothing stale, nothing revived.
    func checkMirrorsServer(_ r: Int) {
        let replica = replicas[r]
        let server = serverState()
        let busy = Set(replica.operations.map { WriteLedger.key($0["id"]?.stringValue ?? "") }
                       + replica.conflicts.map { WriteLedger.key($0["id"]?.stringValue ?? "") })
        var local: [String: [String: JSONValue]] = [:]
        for item in replica.items { local[WriteLedger.key(item["id"]?.stringValue ?? "")] = userFields(item) ?? [:] }
        for key in Set(local.keys).union(server.keys) where !busy.contains(key) {
            let expected = server[key].flatMap { $0.deleted ? nil : $0.fields }
            if local[key] != expected {
                fail("\(replica.name) after pull: item \(key) is \(local[key].map { "\($0)" } ?? "absent"), the server's is \(expected.map { "\($0)" } ?? "absent")")
            }
        }
    }

    /// Every value a replica wrote with an acknowledged command is still somewhere a person can
    /// see it: in the writer's item (pending or synced), on the server's live row, in a receipt's
    /// lost values (any replica), in an open conflict's client or server copy, or superseded by a
    /// later acknowledged change made by a replica that held the value. At the end (`final`),
    /// only the server, receipts and supersession count: nothing is pending any more.
    func checkWrites(_ server: [String: WriteLedger.ServerRow], final: Bool) {
        let conflicts = final ? [] : replicas.flatMap(\.conflicts)
        var items: [Int: [String: [String: JSONValue]]] = [:]
        for write in ledger.writes {
            if WriteLedger.onServer(write, server) { continue }
            if !final {
                if items[write.replica] == nil {
                    var map: [String: [String: JSONValue]] = [:]
                    for item in replicas[write.replica].items { map[WriteLedger.key(item["id"]?.stringValue ?? "")] = userFields(item) ?? [:] }
                    items[write.replica] = map
                }
                if items[write.replica]?[write.id]?[write.field] == write.value { continue }
                if conflicts.contains(where: { c in
                    WriteLedger.key(c["id"]?.stringValue ?? "") == write.id
                        && (c["client"]?[write.field] == write.value || c["server"]?[write.field] == write.value)
                }) { continue }
            }
            if receipts.list(write) || ledger.superseded(write) { continue }
            fail("\(replicas[write.replica].name) wrote \(write.field) = \(write.value.compactText) on \(write.id) at step \(write.step) (\(write.command)); it is on no live server row, in no receipt, no open conflict, and no later change replaced it")
            return
        }
    }
}
