import TodoModel

/// What a randomized sync test knows the replicas were told: every acknowledged write, every
/// acknowledged `rm`, and every resolution that chose a client copy over a deleted server copy.
///
/// Shared by the convergence simulation and the crash campaign so that both state sync.md's
/// invariants against the same record, with the same rules, rather than two copies that drift.
public struct WriteLedger {
    /// One field value written by an acknowledged command. Every `text` and `priority` value of a
    /// run is unique, so a value names its write.
    public struct Write {
        public var replica: Int
        public var id: String
        public var field: String
        public var value: JSONValue
        public var step: Int
        /// The writer's value of the field just before: the value this write supersedes.
        public var previous: JSONValue?
        /// The command that wrote it, for the failure message.
        public var command: String
    }

    /// An acknowledged `rm`, with the item's user fields just before it.
    public struct Removal {
        public var replica: Int
        public var id: String
        public var step: Int
        public var snapshot: [String: JSONValue]
        /// The rm took back the replica's own queued insert (§3.4): it says nothing about the server.
        public var cancelsAdd: Bool
        /// The remover's newest receipt number at the time, for a test that does not stamp
        /// receipts with steps (the crash campaign): a later `resolve` receipt of its own is a
        /// decision taken after the rm.
        public var receiptMark: Int?

        public init(replica: Int, id: String, step: Int, snapshot: [String: JSONValue], cancelsAdd: Bool, receiptMark: Int? = nil) {
            (self.replica, self.id, self.step, self.snapshot) = (replica, id, step, snapshot)
            (self.cancelsAdd, self.receiptMark) = (cancelsAdd, receiptMark)
        }
    }

    /// A server row by its user fields, and whether it is deleted.
    public typealias ServerRow = (id: String, fields: [String: JSONValue], deleted: Bool)

    public private(set) var writes: [Write] = []
    public var removals: [Removal] = []
    /// Acknowledged `add`s: (replica, id key, step).
    public var adds: [(replica: Int, id: String, step: Int)] = []
    /// Resolutions that chose a client copy over a deleted or absent server copy: the only way
    /// an item the server deleted may come back (sync.md §8.5). (id key, step)
    public private(set) var restoreLicences: [(id: String, step: Int)] = []
    /// Licences not yet used by a deleted → live transition on the server, per id key.
    public private(set) var unusedLicences: [String: Int] = [:]
    /// Licensed deleted → live transitions seen on the server. (id key, step)
    public private(set) var restoredAt: [(id: String, step: Int)] = []
    /// Ids (keys) the server holds as deleted, as of the last check.
    public var serverDeleted: Set<String> = []
    /// Whether a change recorded at the same step as a write may supersede it: the crash
    /// campaign's steps run several commands in order; the simulation counts later steps only.
    public let sameStepSupersedes: Bool

    public init(sameStepSupersedes: Bool = false) {
        self.sameStepSupersedes = sameStepSupersedes
    }

    /// Ids are compared ignoring case, as the server does.
    public static func key(_ id: String) -> String { id.lowercased() }

    public mutating func write(_ r: Int, _ id: String, _ field: String, _ value: JSONValue, previous: JSONValue?, step: Int, command: String) {
        writes.append(Write(replica: r, id: Self.key(id), field: field, value: value, step: step, previous: previous, command: command))
    }

    public mutating func grantRestore(_ id: String, step: Int) {
        restoreLicences.append((Self.key(id), step))
        unusedLicences[Self.key(id), default: 0] += 1
    }

    /// Whether some later acknowledged change explains that `write` no longer shows: a write of the
    /// same field by a replica that held this value, or a removal by a replica that held it.
    public func superseded(_ write: Write) -> Bool {
        let later = { (step: Int) in step > write.step || (self.sameStepSupersedes && step == write.step) }
        return writes.contains { $0.id == write.id && $0.field == write.field && later($0.step) && $0.previous == write.value }
            || removals.contains { $0.id == write.id && later($0.step) && $0.snapshot[write.field] == write.value }
    }

    /// Whether the server's live row of the written item holds the written value.
    public static func onServer(_ write: Write, _ server: [String: ServerRow]) -> Bool {
        guard let row = server[write.id], !row.deleted else { return false }
        return row.fields[write.field] == write.value
    }

    /// The server's rows by id key, deleted ones included; a failure message per id held twice.
    public static func serverState(_ rows: [[String: JSONValue]]) -> (rows: [String: ServerRow], failures: [String]) {
        var out: [String: ServerRow] = [:]
        var failures: [String] = []
        for row in rows {
            let id = row["id"]?.stringValue ?? ""
            let key = Self.key(id)
            if out[key] != nil { failures.append("the server holds id \(id) twice") }
            out[key] = (id, userFields(row) ?? [:], row["deleted"]?.boolValue == true)
        }
        return (out, failures)
    }

    /// Notes the server's deleted rows; a row that was deleted and is live again must spend a
    /// restore licence (sync.md §8.5). Returns a failure message per row that had none.
    public mutating func checkDeletions(_ server: [String: ServerRow], step: Int) -> [String] {
        var failures: [String] = []
        for (key, row) in server.sorted(by: { $0.key < $1.key }) {
            if row.deleted {
                serverDeleted.insert(key)
            } else if serverDeleted.contains(key) {
                serverDeleted.remove(key)
                if unusedLicences[key, default: 0] > 0 {
                    unusedLicences[key]! -= 1
                    restoredAt.append((key, step))
                } else {
                    failures.append("item \(row.id) was deleted on the server and came back live without a resolution choosing it")
                }
            }
        }
        return failures
    }

    /// Acknowledged `rm`s whose row is live on the server with no later `add` of the id and no
    /// restore decided after the rm or landing after it (a restore decided earlier may land after
    /// the rm, whose delete then met the row already deleted). The caller still looks for a later
    /// resolution by the remover itself, in its receipts.
    public func removalsUndone(_ server: [String: ServerRow]) -> [Removal] {
        removals.filter { removal in
            guard !removal.cancelsAdd, let row = server[removal.id], !row.deleted else { return false }
            return !adds.contains { $0.id == removal.id && $0.step > removal.step }
                && !restoreLicences.contains { $0.id == removal.id && $0.step > removal.step }
                && !restoredAt.contains { $0.id == removal.id && $0.step >= removal.step }
        }
    }
}

/// User fields of an item or server row: no id, no system properties, no nulls (sync.md §1.3).
public func userFields(_ object: [String: JSONValue]?) -> [String: JSONValue]? {
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
