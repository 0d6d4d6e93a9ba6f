import TodoModel

/// `server-tables.json`: the tables the remote listed at the last `todo pull --all-tables`.
public struct ServerTablesFile: DiskRecord, Sendable {
    public static let format = 1
    public var value: ServerTableList

    public init(_ value: ServerTableList) { self.value = value }

    public var json: JSONValue {
        ["format": .number(Double(Self.format)), "remote": .string(value.remote), "listedAt": .string(value.listedAt),
         "tables": .array(value.tables.map { .string($0) })]
    }

    public init(current r: RecordReader) throws(RecordError) {
        guard let list = r.object["tables"]?.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
            throw RecordError("\"tables\" must be an array of names")
        }
        value = ServerTableList(remote: try r.string("remote"), listedAt: try r.string("listedAt"),
                                tables: list.compactMap(\.stringValue))
    }

    /// Format 1 is the first.
    public static func migrate(_ members: [String: JSONValue], from format: Int) throws(RecordError) -> [String: JSONValue] {
        throw FormatVersion.noOlderFormat(format, current: Self.format)
    }
}
