import TodoBasics
import TodoModel
import TodoTestSupport

/// The end of a run: everyone resolves every conflict and syncs until quiet, then all replicas
/// hold exactly the server's live items, and every acknowledged change is accounted for.
extension SimRun {
    /// At most this many rounds; from the third on, conflicts are resolved with --use-server, so
    /// a correct implementation is quiet after at most four.
    static let maximumRounds = 8

    func finale() {
        var round = 0
        step += 1
        while failures.isEmpty {
            let quiet = replicas.allSatisfy { $0.operations.isEmpty && $0.conflicts.isEmpty }
            for r in replicas.indices {
                network(r, "sync")
                while failures.isEmpty && !replicas[r].conflicts.isEmpty {
                    resolveOne(r, final: true, round: round)
                    checkAfterStep(touched: r)
                }
                checkAfterStep(touched: r)
            }
            // A round that began with nothing queued anywhere pushed nothing: every pull in it
            // saw the final server state.
            if quiet { break }
            round += 1
            if round > Self.maximumRounds {
                return fail("not quiet after \(Self.maximumRounds) rounds of resolve and sync")
            }
        }
        guard failures.isEmpty else { return }
        let server = serverState()
        var live: [String: [String: JSONValue]] = [:]
        for (_, row) in server where !row.deleted { live[row.id] = row.fields }
        for replica in replicas {
            var local: [String: [String: JSONValue]] = [:]
            for item in replica.items { local[item["id"]?.stringValue ?? ""] = userFields(item) ?? [:] }
            if local != live { fail("\(replica.name) holds \(local), the server \(live)") }
            if !replica.operations.isEmpty || !replica.conflicts.isEmpty { fail("\(replica.name) is not quiet") }
        }
        checkWrites(server, final: true)
        checkRemovals(server)
    }

    /// Every acknowledged `rm` holds at the end: the server's row is not live, or a later
    /// acknowledged change brought the item back on purpose: an `add` of the id, a resolution that
    /// restored it (decided after the rm, or landing after it), or a resolution by the remover
    /// itself (its receipt says what it kept).
    func checkRemovals(_ server: [String: WriteLedger.ServerRow]) {
        for removal in ledger.removalsUndone(server) {
            if receipts.all.contains(where: { seen in
                seen.replica == removal.replica && seen.step > removal.step
                    && seen.record["decision"]?.stringValue == "resolve"
                    && WriteLedger.key(seen.record["id"]?.stringValue ?? "") == removal.id
            }) { continue }
            fail("\(replicas[removal.replica].name) removed \(removal.id) at step \(removal.step), and it is live on the server with no add, restore or resolution after it")
        }
    }
}
