/// Compares the replica's copies of an item with the server's row at the same version (issue 22:
/// a server that served half a write left replicas holding a copy that lacks fields, under the
/// real version, and no later pull would bring them back). Pure: `todo pull --verify` and
/// `todo doctor --remote` gather the local state and apply or print what this finds.
///
/// A copy claims a version through `ms_version`: the item file (the last server copy, when no op
/// is pending), the base of each pending op, and the server copy of an open conflict. A copy that
/// claims the row's version must hold exactly the row's user fields. Copies at other versions
/// are merely older or newer, which an ordinary pull settles; copies without a version claim
/// nothing.
public enum VersionCheck {
    /// One field whose value differs; nil is absent.
    public struct FieldDifference: Sendable, Equatable {
        public var name: String
        public var here: JSONValue?
        public var server: JSONValue?

        public init(name: String, here: JSONValue?, server: JSONValue?) {
            self.name = name
            self.here = here
            self.server = server
        }
    }

    /// Where the differing copy is kept.
    public enum Place: Sendable, Equatable {
        case item
        case base(sequence: Int)
        case conflictServerCopy
    }

    public struct Difference: Sendable, Equatable {
        public var table: String
        public var id: String
        public var version: String
        public var place: Place
        public var fields: [FieldDifference]
    }

    /// The repair of every difference of one item, in one commit: the files to write and the
    /// receipts that keep the replaced values.
    public struct Repair: Sendable {
        public var differences: [Difference] = []
        public var item: Item?
        public var operations: [PendingOperation] = []
        public var conflict: Conflict?
        public var receipts: [Receipt] = []
        public var isEmpty: Bool { differences.isEmpty }
    }

    /// The differences between the item's local copies and the server's row `row` (normalised,
    /// `ms_deleted` true when deleted), and how to repair them: each differing copy takes the row.
    public static func check(_ row: Item, against local: PulledRow.Local) -> Repair {
        var repair = Repair()
        guard let version = row.system.version else { return repair }
        let table = local.table
        let names = { (copy: Item) in Set(copy.fields.keys).union(row.fields.keys).sorted() }
        func differences(_ copy: Item) -> [FieldDifference]? {
            guard copy.system.version == version else { return nil }
            var out = names(copy).filter { copy.fields[$0] != row.fields[$0] }
                .map { FieldDifference(name: $0, here: copy.fields[$0], server: row.fields[$0]) }
            if copy.isDeleted != row.isDeleted {
                out.append(FieldDifference(name: "ms_deleted", here: .bool(copy.isDeleted), server: .bool(row.isDeleted)))
            }
            return out.isEmpty ? nil : out
        }
        func lost(_ fields: [FieldDifference]) -> [String: [String: JSONValue]] {
            ["client": Dictionary(uniqueKeysWithValues: fields.map { ($0.name, $0.here ?? .null) })]
        }

        if local.operations.isEmpty, local.conflict == nil, let item = local.item, let fields = differences(item) {
            repair.differences.append(Difference(table: table, id: item.id, version: version, place: .item, fields: fields))
            let fixed = row.isDeleted ? nil : PulledRow.itemCopy(row)
            repair.item = fixed
            repair.receipts.append(receipt(table, item.id, operation: nil, kept: fixed?.userCopy, lost: lost(fields),
                                           note: "the item differed from the server's copy at version \(version)"))
        }
        for (i, op) in local.operations.enumerated() {
            guard let base = op.base, let fields = differences(base) else { continue }
            repair.differences.append(Difference(table: table, id: op.id, version: version, place: .base(sequence: op.sequence), fields: fields))
            var fixed = op
            fixed.base = row
            // The change was made on the damaged copy: fields it did not touch take the row's
            // values, or the PATCH would clear what the damage hid (its nulls for base fields).
            if !op.isSealed, op.kind != .delete {
                fixed.item = Item(id: op.item.id, fields: rebased(op.item.fields, from: base.fields, onto: row.fields))
                if i == local.operations.count - 1, let item = local.item {
                    repair.item = Item(id: item.id, fields: fixed.item.fields, system: item.system)
                }
            }
            repair.operations.append(fixed)
            repair.receipts.append(receipt(table, op.id, operation: op.reference, kept: local.item?.userCopy, lost: lost(fields),
                                           note: "the base of operation #\(op.sequence) differed from the server's copy at version \(version)"))
        }
        if var conflict = local.conflict, let server = conflict.server, let fields = differences(server) {
            repair.differences.append(Difference(table: table, id: conflict.id, version: version, place: .conflictServerCopy, fields: fields))
            conflict.server = row
            if conflict.reason == .conflict, let client = conflict.client, !row.isDeleted, conflict.operation.kind != .delete {
                conflict.fields = PulledRow.clashes(base: conflict.base, client: client, server: row)
            }
            repair.conflict = conflict
            repair.receipts.append(receipt(table, conflict.id, operation: conflict.operation, kept: local.item?.userCopy, lost: lost(fields),
                                           note: "the conflict's server copy differed from the server's copy at version \(version)"))
        }
        return repair
    }

    /// A change's fields moved from `base` onto `server`: what the change set differently from
    /// `base` stays; everything else is the server's.
    static func rebased(_ client: [String: JSONValue], from base: [String: JSONValue], onto server: [String: JSONValue]) -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        for name in Set(client.keys).union(base.keys).union(server.keys) {
            let value = client[name] != base[name] ? client[name] : server[name]
            if let value { out[name] = value }
        }
        return out
    }

    static func receipt(_ table: String, _ id: String, operation: OperationReference?, kept: Item?,
                        lost: [String: [String: JSONValue]], note: String) -> Receipt {
        Receipt(decision: .repair, rule: "verify", table: table, id: id, operation: operation, kept: kept, lost: lost, note: note)
    }
}
