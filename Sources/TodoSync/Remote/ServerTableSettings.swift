import TableProtocol
import TodoModel

/// What a table server says of a table in its `X-Todo-Table-Settings` header (`todo-server` sends
/// it on every answer about a table, issue 17 item 6), e.g. `softDelete=false; idType=string`.
/// Other servers send nothing: then nothing is known, and nothing is assumed.
public struct ServerTableSettings: Sendable, Equatable {
    /// False: the server removes deleted rows, so pulls never show other replicas' deletions.
    public var softDelete: Bool?
    /// True: the table's ids are integers the server hands out (`autoIncrement`).
    public var integerIDs: Bool?

    public init(softDelete: Bool? = nil, integerIDs: Bool? = nil) {
        self.softDelete = softDelete
        self.integerIDs = integerIDs
    }

    /// The settings a header names; nil without the header. Unknown parts are ignored (a later
    /// server may name more).
    public init?(header: String?) {
        guard let header else { return nil }
        for part in header.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1).map { String($0).trimmingSpaces }
            guard pair.count == 2 else { continue }
            switch pair[0] {
            case "softDelete": softDelete = pair[1] == "true" ? true : pair[1] == "false" ? false : nil
            case "idType": integerIDs = pair[1] == "autoIncrement"
            default: continue
            }
        }
    }

    public static let headerName = "X-Todo-Table-Settings"
}

/// Tables whose ids are integers: the replica keeps string ids only (sync.md §10.2), so it refuses
/// them before anything of theirs is stored or sent.
enum IntegerIDTable {
    /// Whether an answer shows integer ids: the server says so, or, from a server that does not,
    /// its item has a numeric `id`, or rows have numeric ids and none a string one. (A stray
    /// numeric id among string ids is one bad row, skipped with a warning as any row without a
    /// valid id is, protocol §10.7.)
    static func shown(by reply: TableReply) -> Bool {
        if reply.tableSettings?.integerIDs == true { return true }
        guard let rows = reply.rows else { return reply.body.map { id(of: $0) == .number } ?? false }
        let kinds = rows.map(id(of:))
        return kinds.contains(.number) && !kinds.contains(.string)
    }

    private enum IDKind { case number, string, other }

    private static func id(of value: JSONValue) -> IDKind {
        switch value.objectValue?["id"] {
        case .number?: .number
        case .string?: .string
        default: .other
        }
    }
}

extension TableReply {
    /// The table settings the answer names (`X-Todo-Table-Settings`), if any.
    public var tableSettings: ServerTableSettings? {
        ServerTableSettings(header: headers[ServerTableSettings.headerName])
    }
}
