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
    /// server may name more). Read as UTF-8 bytes: every answer of a push carries the header.
    public init?(header: String?) {
        guard let header else { return nil }
        let bytes = Array(header.utf8)
        var start = 0
        while start <= bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
            let part = bytes[start..<end]
            start = end + 1
            // As `split` read it: a part with nothing before or after its `=` names nothing.
            guard let equals = part.firstIndex(of: UInt8(ascii: "=")), equals > part.startIndex,
                  equals + 1 < part.endIndex else { continue }
            let name = Self.trimmed(part[..<equals]), value = Self.trimmed(part[(equals + 1)...])
            if name.elementsEqual("softDelete".utf8) {
                softDelete = value.elementsEqual("true".utf8) ? true : value.elementsEqual("false".utf8) ? false : nil
            } else if name.elementsEqual("idType".utf8) {
                integerIDs = value.elementsEqual("autoIncrement".utf8)
            }
        }
    }

    /// Without spaces and tabs at either end.
    private static func trimmed(_ part: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var part = part
        while let first = part.first, first == 0x20 || first == 0x09 { part.removeFirst() }
        while let last = part.last, last == 0x20 || last == 0x09 { part.removeLast() }
        return part
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
    public var tableSettings: ServerTableSettings? { parsedHeaders.tableSettings }
}
