import TodoModel
import TodoTestSupport

/// Every receipt the replicas wrote, stamped with the step it appeared in: the simulation's
/// addition to the shared `WriteLedger`, since it checks receipts after every step.
struct SimReceipts {
    struct Seen {
        var replica: Int
        var step: Int
        var record: [String: JSONValue]
    }

    var all: [Seen] = []
    /// How many receipts each replica had at the last look: receipts are only ever added.
    var counts: [Int: Int] = [:]

    /// Whether a receipt of any replica lists the value as lost on either side (sync.md §9.1).
    func list(_ write: WriteLedger.Write) -> Bool {
        all.contains { seen in
            guard WriteLedger.key(seen.record["id"]?.stringValue ?? "") == write.id else { return false }
            let lost = seen.record["lost"]?.objectValue ?? [:]
            return lost["client"]?[write.field] == write.value || lost["server"]?[write.field] == write.value
        }
    }
}
