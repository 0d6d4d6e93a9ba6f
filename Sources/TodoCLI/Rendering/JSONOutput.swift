import TodoModel

/// The records inside `--json` output (README, "`--json` (a stable contract for scripts)"): items,
/// operations, receipts, the config. A shape of their own, apart from the domain values and from
/// the files in `.todo` (`DiskFormat` in TodoStore), so that a new disk format never changes what
/// scripts read, and a new output field never changes a file.
///
/// Today each is what the file of format 1 held, byte for byte (the contract was written as "the
/// record as stored"): `"format": 1` included, which here names this output shape, not the disk's.
enum JSONOutput {
    /// The shape's version in operation, receipt and config records.
    static let format: JSONValue = 1

    /// `id`, the user fields, and the `ms_` system properties the replica holds.
    static func item(_ item: Item) -> JSONValue {
        var o = item.fields
        o["id"] = .string(item.id)
        if let v = item.system.createdAt { o["ms_createdAt"] = .string(v) }
        if let v = item.system.updatedAt { o["ms_updatedAt"] = .string(v) }
        if let v = item.system.version { o["ms_version"] = .string(v) }
        if let deleted = item.system.deleted { o["ms_deleted"] = .bool(deleted) }
        return .object(o)
    }

    static func item(_ item: Item?) -> JSONValue { item.map { Self.item($0) } ?? .null }

    /// `{"kind", "sequence"}`.
    static func reference(_ r: OperationReference) -> JSONValue {
        ["kind": .string(r.kind.rawValue), "sequence": .number(Double(r.sequence))]
    }

    static func operation(_ op: PendingOperation) -> JSONValue {
        var o: [String: JSONValue] = [
            "format": format, "sequence": .number(Double(op.sequence)), "table": .string(op.table), "id": .string(op.id),
            "kind": .string(op.kind.rawValue), "item": item(op.item), "base": item(op.base),
            "attempted": .bool(op.attempted), "queuedAt": .string(op.queuedAt),
        ]
        if let attemptedAt = op.attemptedAt { o["attemptedAt"] = .string(attemptedAt) }
        if op.restore { o["restore"] = .bool(true) }
        return .object(o)
    }

    static func receipt(_ r: Receipt) -> JSONValue {
        var o: [String: JSONValue] = [
            "format": format, "number": .number(Double(r.number)), "at": .string(r.at),
            "decision": .string(r.decision.rawValue), "rule": .string(r.rule), "table": .string(r.table),
            "id": .string(r.id), "operation": r.operation.map(reference) ?? .null, "kept": item(r.kept?.userCopy),
            "lost": .object(r.lost.mapValues { .object($0) }),
            "fields": r.fields.map { ["fromClient": .array($0.fromClient.map { .string($0) }),
                                      "fromServer": .array($0.fromServer.map { .string($0) })] } ?? .null,
        ]
        if let note = r.note { o["note"] = .string(note) }
        return .object(o)
    }

    /// The config as `init --json` shows it: never a key or token (those are not in the config).
    static func config(_ c: ReplicaConfig) -> JSONValue {
        var o: [String: JSONValue] = [
            "format": format, "remote": c.remote.map { .string($0) } ?? .null, "protocol": .string(c.protocolGeneration.rawValue),
            "defaultTable": .string(c.defaultTable), "installationId": .string(c.installationId),
            "pageSize": .number(Double(c.pageSize)),
        ]
        if let caFile = c.caFile { o["caFile"] = .string(caFile) }
        return .object(o)
    }

    /// An item's state in `undo --json`: `{"item", "operations"}`.
    static func state(_ s: ItemState) -> JSONValue {
        ["item": item(s.item), "operations": .array(s.operations.map(operation))]
    }
}
