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

    /// Equal when every member is, `kept` by its user fields (a receipt never holds system
    /// properties), text by Unicode scalars as the protocol compares it.
    public static func == (a: Receipt, b: Receipt) -> Bool {
        a.number == b.number && a.at.scalarEquals(b.at) && a.decision == b.decision && a.rule.scalarEquals(b.rule)
            && a.table.scalarEquals(b.table) && a.id.scalarEquals(b.id) && a.operation == b.operation
            && a.kept?.userCopy == b.kept?.userCopy && a.lost == b.lost
            && a.fields?.fromClient == b.fields?.fromClient && a.fields?.fromServer == b.fields?.fromServer
            && a.note == b.note
    }
}
