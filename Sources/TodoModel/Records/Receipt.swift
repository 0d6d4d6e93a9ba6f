/// A record of an automatic decision or a resolution, with the values it discarded (sync.md §9),
/// so that nothing is ever lost silently.
public struct Receipt: Sendable, Equatable {
    public enum Decision: String, Sendable, CaseIterable {
        case collapse, merge, absorb, replay, resolve, purge
        case bothDeleted = "both-deleted"
        /// `todo edit ID --discard` put back what todo wrote over an edit made by hand.
        case discard
        /// `todo pull --verify` replaced a copy that differed from the server's at its version.
        case repair
        /// `todo undo` put back an item's state from before a local change.
        case undo
    }

    public var number: Int
    public var at: String
    public var decision: Decision
    public var rule: String
    public var table: String
    public var id: String
    public var operation: OperationReference?
    /// The resulting item (`id` and user fields), or nil when the item ends deleted.
    public var kept: Item?
    /// Per side ("client", "server"): the fields whose values do not survive, with those values
    /// (`null` for a field the side lacked). Empty when nothing is lost.
    public var lost: [String: [String: JSONValue]]
    /// For merges: which side each field came from.
    public var fields: (fromClient: [String], fromServer: [String])?
    /// A sentence for people, e.g. "nothing left to push". Optional; not in the spec's minimum.
    public var note: String?

    public init(number: Int = 0, at: String = "", decision: Decision, rule: String, table: String, id: String,
                operation: OperationReference?, kept: Item?, lost: [String: [String: JSONValue]],
                fields: (fromClient: [String], fromServer: [String])? = nil, note: String? = nil) {
        self.number = number
        self.at = at
        self.decision = decision
        self.rule = rule
        self.table = table
        self.id = id
        self.operation = operation
        self.kept = kept
        self.lost = lost
        self.fields = fields
        self.note = note
    }

    public static func == (a: Receipt, b: Receipt) -> Bool { a.json == b.json }

    public var json: JSONValue {
        var o: [String: JSONValue] = [
            "format": 1,
            "number": .number(Double(number)),
            "at": .string(at),
            "decision": .string(decision.rawValue),
            "rule": .string(rule),
            "table": .string(table),
            "id": .string(id),
            "operation": operation?.json ?? .null,
            "kept": kept?.userCopy.json ?? .null,
            "lost": .object(lost.mapValues { .object($0) }),
            "fields": fields.map { ["fromClient": .array($0.fromClient.map { .string($0) }),
                                    "fromServer": .array($0.fromServer.map { .string($0) })] } ?? .null,
        ]
        if let note { o["note"] = .string(note) }
        return .object(o)
    }

    public init(json: JSONValue) throws(RecordError) {
        let r = try RecordReader(json)
        try r.checkFormat()
        var lost: [String: [String: JSONValue]] = [:]
        for (side, values) in try r.object("lost") {
            guard let o = values.objectValue else { throw RecordError("\"lost\".\"\(side)\" must be an object") }
            lost[side] = o
        }
        var kept: Item? = nil
        if let k = try r.optionalObject("kept") { kept = try Item(json: .object(k)) }
        var fields: (fromClient: [String], fromServer: [String])? = nil
        if let f = try r.optionalObject("fields") {
            let strings = { (key: String) -> [String] in (f[key]?.arrayValue ?? []).compactMap(\.stringValue) }
            fields = (strings("fromClient"), strings("fromServer"))
        }
        self.init(number: try r.int("number"), at: try r.string("at"),
                  decision: try r.oneOf("decision", Decision.self,
                                        expected: Decision.allCases.map(\.rawValue).joined(separator: ", ")),
                  rule: try r.string("rule"), table: try r.string("table"), id: try r.string("id"),
                  operation: try OperationReference(json: r.object["operation"] ?? .null),
                  kept: kept, lost: lost, fields: fields, note: try r.optionalString("note"))
    }
}
