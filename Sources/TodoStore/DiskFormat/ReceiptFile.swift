import TodoModel

/// A receipt file (`receipts/<number>.<decision>.<table>.<enc>.json`): an automatic decision or a
/// resolution, with the values it discarded. Never deleted by todo.
public struct ReceiptFile: DiskRecord, Sendable {
    public static let format = 1
    public var value: Receipt

    public init(_ value: Receipt) { self.value = value }

    public var json: JSONValue {
        let r = value
        var o: [String: JSONValue] = [
            "format": .number(Double(Self.format)),
            "number": .number(Double(r.number)),
            "at": .string(r.at),
            "decision": .string(r.decision.rawValue),
            "rule": .string(r.rule),
            "table": .string(r.table),
            "id": .string(r.id),
            "operation": r.operation.map(OperationReferenceFormat.json) ?? .null,
            "kept": r.kept.map { ItemCopyFormat.json($0.userCopy) } ?? .null,
            "lost": .object(r.lost.mapValues { .object($0) }),
            "fields": r.fields.map { ["fromClient": .array($0.fromClient.map { .string($0) }),
                                      "fromServer": .array($0.fromServer.map { .string($0) })] } ?? .null,
        ]
        if let note = r.note { o["note"] = .string(note) }
        return .object(o)
    }

    public init(current r: RecordReader) throws(RecordError) {
        var lost: [String: [String: JSONValue]] = [:]
        for (side, values) in try r.object("lost") {
            guard let o = values.objectValue else { throw RecordError("\"lost\".\"\(side)\" must be an object") }
            lost[side] = o
        }
        var kept: Item? = nil
        if let k = try r.optionalObject("kept") { kept = try ItemCopyFormat.item(.object(k)) }
        var fields: (fromClient: [String], fromServer: [String])? = nil
        if let f = try r.optionalObject("fields") {
            let strings = { (key: String) -> [String] in (f[key]?.arrayValue ?? []).compactMap(\.stringValue) }
            fields = (strings("fromClient"), strings("fromServer"))
        }
        value = Receipt(number: try r.int("number"), at: try r.string("at"),
                        decision: try r.oneOf("decision", Receipt.Decision.self,
                                              expected: Receipt.Decision.allCases.map(\.rawValue).joined(separator: ", ")),
                        rule: try r.string("rule"), table: try r.string("table"), id: try r.string("id"),
                        operation: try OperationReferenceFormat.reference(r.object["operation"] ?? .null),
                        kept: kept, lost: lost, fields: fields, note: try r.optionalString("note"))
    }

    /// Format 1 is the first.
    public static func migrate(_ members: [String: JSONValue], from format: Int) throws(RecordError) -> [String: JSONValue] {
        throw FormatVersion.noOlderFormat(format, current: Self.format)
    }
}
