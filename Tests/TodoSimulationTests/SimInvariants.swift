import TodoBasics
import TodoModel

/// The invariants, checked after every step and at the end of a run.
extension SimRun {
    /// The server's rows by id key: user fields, and whether the row is deleted.
    func serverState() -> [String: (id: String, fields: [String: JSONValue], deleted: Bool)] {
        var out: [String: (id: String, fields: [String: JSONValue], deleted: Bool)] = [:]
        for row in world.allRows() {
            let id = row["id"]?.stringValue ?? ""
            let key = SimLedger.key(id)
            if out[key] != nil { fail("the server holds id \(id) twice") }
            out[key] = (id, userFields(row) ?? [:], row["deleted"]?.boolValue == true)
        }
        return out
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
            let key = SimLedger.key(item["id"]?.stringValue ?? "")
            if !seen.insert(key).inserted { fail("\(replicas[r].name) holds item \(key) twice") }
        }
        var conflicts: Set<String> = []
        for conflict in replicas[r].conflicts {
            let key = SimLedger.key(conflict["id"]?.stringValue ?? "")
            if !conflicts.insert(key).inserted { fail("\(replicas[r].name) has two conflicts for \(key)") }
        }
    }

    /// Receipts are never removed and only added; each is stamped with the step it appeared in.
    func collectReceipts(_ r: Int) {
        let all = replicas[r].receipts
        let known = ledger.receiptCounts[r, default: 0]
        if all.count < known { fail("\(replicas[r].name): receipts disappeared (\(known) → \(all.count))") }
        for record in all.dropFirst(known) { ledger.receipts.append(.init(replica: r, step: step, record: record)) }
        ledger.receiptCounts[r] = all.count
    }

    /// A row the server deleted comes back only when a resolution chose a client copy over the
    /// deleted (or absent) server copy: each such resolution licenses one return (sync.md §8.5).
    func checkDeletions(_ server: [String: (id: String, fields: [String: JSONValue], deleted: Bool)]) {
        for (key, row) in server {
            if row.deleted {
                ledger.serverDeleted.insert(key)
            } else if ledger.serverDeleted.contains(key) {
                ledger.serverDeleted.remove(key)
                if ledger.unusedLicences[key, default: 0] > 0 {
                    ledger.unusedLicences[key]! -= 1
                    ledger.restoredAt.append((key, step))
                } else {
                    fail("item \(row.id) was deleted on the server and came back live without a resolution choosing it")
                }
            }
        }
    }

    /// After a completed pull, every item with no pending op and no conflict holds exactly the
    /// server's row, and an item the server deleted is gone (§5.5): nothing stale, nothing revived.
    func checkMirrorsServer(_ r: Int) {
        let replica = replicas[r]
        let server = serverState()
        let busy = Set(replica.operations.map { SimLedger.key($0["id"]?.stringValue ?? "") }
                       + replica.conflicts.map { SimLedger.key($0["id"]?.stringValue ?? "") })
        var local: [String: [String: JSONValue]] = [:]
        for item in replica.items { local[SimLedger.key(item["id"]?.stringValue ?? "")] = userFields(item) ?? [:] }
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
    func checkWrites(_ server: [String: (id: String, fields: [String: JSONValue], deleted: Bool)], final: Bool) {
        let conflicts = final ? [] : replicas.flatMap(\.conflicts)
        var items: [Int: [String: [String: JSONValue]]] = [:]
        for write in ledger.writes {
            if let row = server[write.id], !row.deleted, row.fields[write.field] == write.value { continue }
            if !final {
                if items[write.replica] == nil {
                    var map: [String: [String: JSONValue]] = [:]
                    for item in replicas[write.replica].items { map[SimLedger.key(item["id"]?.stringValue ?? "")] = userFields(item) ?? [:] }
                    items[write.replica] = map
                }
                if items[write.replica]?[write.id]?[write.field] == write.value { continue }
                if conflicts.contains(where: { c in
                    SimLedger.key(c["id"]?.stringValue ?? "") == write.id
                        && (c["client"]?[write.field] == write.value || c["server"]?[write.field] == write.value)
                }) { continue }
            }
            if ledger.inReceipt(write) || ledger.superseded(write) { continue }
            fail("\(replicas[write.replica].name) wrote \(write.field) = \(write.value.compactText) on \(write.id) at step \(write.step) (\(write.command)); it is on no live server row, in no receipt, no open conflict, and no later change replaced it")
            return
        }
    }
}
