import TodoModel

/// What the simulation knows the replicas were told: every acknowledged change (a command that
/// exited 0), every restore a resolution asked for, and every receipt with the step it appeared.
///
/// The invariants are stated against this record and the files, never against a model of sync.
struct SimLedger {
    /// One field value a replica wrote with an acknowledged command. Values of `text` and
    /// `priority` are unique per run, so a value names its write.
    struct Write {
        var replica: Int
        var id: String
        var field: String
        var value: JSONValue
        var step: Int
        /// The replica's local value of the field just before: the value this write supersedes.
        var previous: JSONValue?
        var command: String
    }

    /// An acknowledged `rm`, with the item's user fields just before it.
    struct Removal {
        var replica: Int
        var id: String
        var step: Int
        var snapshot: [String: JSONValue]
        var cancelsAdd: Bool
    }

    struct SeenReceipt {
        var replica: Int
        var step: Int
        var record: [String: JSONValue]
    }

    var writes: [Write] = []
    var removals: [Removal] = []
    /// Acknowledged `add`s: (replica, id key, step).
    var adds: [(replica: Int, id: String, step: Int)] = []
    /// Resolutions that chose a client copy over a server copy that was deleted or absent:
    /// the only way an item the server deleted may come back (sync.md §8.5). (id key, step)
    var restoreLicences: [(id: String, step: Int)] = []
    /// Licences not yet used by a deleted→live transition on the server, per id key.
    var unusedLicences: [String: Int] = [:]
    /// Licensed deleted→live transitions seen on the server: (id key, step).
    var restoredAt: [(id: String, step: Int)] = []
    /// Ids (keys) the server holds as deleted, as of the last check.
    var serverDeleted: Set<String> = []
    var receipts: [SeenReceipt] = []
    var receiptCounts: [Int: Int] = [:]

    static func key(_ id: String) -> String { id.lowercased() }

    mutating func grantRestore(_ id: String, step: Int) {
        restoreLicences.append((Self.key(id), step))
        unusedLicences[Self.key(id), default: 0] += 1
    }

    /// Whether some later acknowledged change explains that `write` no longer shows: a write of the
    /// same field by a replica that held this value, or a removal by a replica that held it.
    func superseded(_ write: Write) -> Bool {
        writes.contains { $0.id == write.id && $0.field == write.field && $0.step > write.step && $0.previous == write.value }
            || removals.contains { $0.id == write.id && $0.step > write.step && $0.snapshot[write.field] == write.value }
    }

    /// Whether a receipt of any replica lists the value as lost on either side (sync.md §9.1).
    func inReceipt(_ write: Write) -> Bool {
        receipts.contains { seen in
            guard Self.key(seen.record["id"]?.stringValue ?? "") == write.id else { return false }
            let lost = seen.record["lost"]?.objectValue ?? [:]
            return lost["client"]?[write.field] == write.value || lost["server"]?[write.field] == write.value
        }
    }
}
