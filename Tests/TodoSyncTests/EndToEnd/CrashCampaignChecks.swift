import TodoBasics
import TodoModel

/// What the campaign knows the replicas were told: every acknowledged write (a command that
/// exited 0, or that was killed after it took effect and then confirmed by running it again),
/// every acknowledged `rm`, and every resolution that chose a client copy over a deleted server
/// copy. The ideas are the convergence simulation's (TodoSimulationTests/SimLedger.swift), cut
/// down to what a campaign without per-step receipts can state.
struct CrashLedger {
    /// One field value written by an acknowledged command. Every `text` and `priority` value of a
    /// run is unique, so a value names its write.
    struct Write {
        var replica: Int
        var id: String
        var field: String
        var value: JSONValue
        var step: Int
        /// The writer's value of the field just before: the value this write supersedes.
        var previous: JSONValue?
    }

    struct Removal {
        var replica: Int
        var id: String
        var step: Int
        var snapshot: [String: JSONValue]
        /// The rm took back the replica's own queued insert (§3.4): it says nothing about the server.
        var cancelsAdd: Bool
        /// The remover's newest receipt number at the time: a later `resolve` receipt of its own
        /// is a decision taken after the rm.
        var receiptMark: Int
    }

    var writes: [Write] = []
    var removals: [Removal] = []
    var adds: [(replica: Int, id: String, step: Int)] = []
    /// Resolutions that chose a client copy over a deleted or absent server copy: the only way
    /// an item the server deleted may come back (sync.md §8.5). (id key, step)
    var restoreLicences: [(id: String, step: Int)] = []
    var unusedLicences: [String: Int] = [:]
    /// Licensed deleted → live transitions seen on the server. (id key, step)
    var restoredAt: [(id: String, step: Int)] = []
    var serverDeleted: Set<String> = []

    static func key(_ id: String) -> String { id.lowercased() }

    /// User fields of an item or server row: no id, no system properties, no nulls (sync.md §1.3).
    static func userFields(_ object: [String: JSONValue]?) -> [String: JSONValue]? {
        guard let object else { return nil }
        var out: [String: JSONValue] = [:]
        for (name, value) in object where !value.isNull && name != "id" && !name.lowercased().hasPrefix("ms_") {
            switch name {
            case "createdAt", "updatedAt", "version", "deleted": continue
            default: out[name] = value
            }
        }
        return out
    }

    mutating func write(_ r: Int, _ id: String, _ field: String, _ value: JSONValue, previous: JSONValue?, step: Int) {
        writes.append(.init(replica: r, id: Self.key(id), field: field, value: value, step: step, previous: previous))
    }

    mutating func grantRestore(_ id: String, step: Int) {
        restoreLicences.append((Self.key(id), step))
        unusedLicences[Self.key(id), default: 0] += 1
    }

    /// A later acknowledged change made by a replica that held this value replaced it.
    func superseded(_ write: Write) -> Bool {
        writes.contains { $0.id == write.id && $0.field == write.field && $0.step >= write.step && $0.previous == write.value }
            || removals.contains { $0.id == write.id && $0.step >= write.step && $0.snapshot[write.field] == write.value }
    }
}

/// The checks: after network commands, and at the end once everyone is quiet.
extension CrashCampaign {
    typealias ServerRow = (id: String, fields: [String: JSONValue], deleted: Bool)

    /// Every row of the server, deleted ones included; an id twice (ignoring case) fails.
    func serverState() -> [String: ServerRow] {
        let reply = server.http("GET", "/tables/todoitem?__includeDeleted=true&$top=1000", headers: [("ZUMO-API-VERSION", "2.0.0")])
        guard reply.status == 200, let rows = reply.json?.arrayValue, rows.count < 1000 else {
            fail("GET of the server's rows: \(reply.status), \(reply.json?.arrayValue?.count ?? -1) rows")
            return [:]
        }
        var out: [String: ServerRow] = [:]
        for row in rows.compactMap(\.objectValue) {
            let id = row["id"]?.stringValue ?? ""
            let key = CrashLedger.key(id)
            if out[key] != nil { fail("the server holds id \(id) twice") }
            out[key] = (id, CrashLedger.userFields(row) ?? [:], row["deleted"]?.boolValue == true)
        }
        return out
    }

    /// No id twice on the server, and a row the server deleted comes back live only when a
    /// resolution chose a client copy over it: each such resolution licenses one return.
    @discardableResult
    func checkServer() -> [String: ServerRow] {
        let server = serverState()
        for (key, row) in server.sorted(by: { $0.key < $1.key }) {
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
        return server
    }

    /// After a completed pull, every item with no pending op and no conflict holds exactly the
    /// server's row, and an item the server deleted is gone (sync.md §5.5).
    func checkMirrorsServer(_ r: Int) {
        let server = serverState()
        let busy = Set((operations(r) + conflicts(r)).map { CrashLedger.key($0["id"]?.stringValue ?? "") })
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
    func checkWrites(_ server: [String: ServerRow]) {
        let lost = names.indices.flatMap { receipts($0) }.compactMap { receipt -> (String, [String: JSONValue])? in
            guard let id = receipt["id"]?.stringValue, let sides = receipt["lost"]?.objectValue else { return nil }
            return (CrashLedger.key(id), (sides["client"]?.objectValue ?? [:]).merging(sides["server"]?.objectValue ?? [:]) { a, _ in a })
        }
        let lostValues = Set(lost.flatMap { id, fields in fields.map { "\(id) \($0.key) \($0.value.compactText)" } })
        for write in ledger.writes {
            if let row = server[write.id], !row.deleted, row.fields[write.field] == write.value { continue }
            if lostValues.contains("\(write.id) \(write.field) \(write.value.compactText)") { continue }
            if ledger.superseded(write) { continue }
            return fail("\(names[write.replica]) wrote \(write.field) = \(write.value.compactText) on \(write.id) at step \(write.step); it is on no live server row, in no receipt, and no later change replaced it")
        }
    }

    /// Every acknowledged `rm` holds: the server's row is not live, unless a later add of the id,
    /// a resolution that restored it (decided after the rm, or landing after it), or a later
    /// resolution by the remover itself (its receipt says what it kept) brought it back.
    func checkRemovals(_ server: [String: ServerRow]) {
        for removal in ledger.removals where !removal.cancelsAdd {
            guard let row = server[removal.id], !row.deleted else { continue }
            if ledger.adds.contains(where: { $0.id == removal.id && $0.step > removal.step }) { continue }
            if ledger.restoreLicences.contains(where: { $0.id == removal.id && $0.step > removal.step }) { continue }
            if ledger.restoredAt.contains(where: { $0.id == removal.id && $0.step >= removal.step }) { continue }
            if receipts(removal.replica).contains(where: { receipt in
                (receipt["number"]?.numberValue).map { Int($0) > removal.receiptMark } == true
                    && receipt["decision"]?.stringValue == "resolve"
                    && CrashLedger.key(receipt["id"]?.stringValue ?? "") == removal.id
            }) { continue }
            fail("\(names[removal.replica]) removed \(removal.id) at step \(removal.step), and it is live on the server with no add, restore or resolution after it")
        }
    }
}
