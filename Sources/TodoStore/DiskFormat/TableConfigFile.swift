import TodoModel

/// `tables/<table>/table.json`: how the table pages, and each pull query's filter and token.
public struct TableConfigFile: DiskRecord, Sendable {
    public static let format = 1
    public var value: TableConfig

    public init(_ value: TableConfig) { self.value = value }

    /// `hardDelete` is written only when true.
    public var json: JSONValue {
        var qs: [String: JSONValue] = [:]
        for (id, q) in value.queries {
            var o: [String: JSONValue] = ["filter": q.filter.map { .string($0) } ?? .null,
                                          "lastPullAt": q.lastPullAt.map { .string($0) } ?? .null]
            if let t = q.token { o["token"] = ["updatedAt": .string(t.updatedAt), "id": t.id.map { .string($0) } ?? .null] }
            qs[id] = .object(o)
        }
        var o: [String: JSONValue] = ["format": .number(Double(Self.format)), "name": .string(value.name),
                                      "cursorMode": .string(value.cursorMode.rawValue), "queries": .object(qs)]
        if value.hardDelete { o["hardDelete"] = true }
        return .object(o)
    }

    public init(current r: RecordReader) throws(RecordError) {
        var queries: [String: TableConfig.Query] = [:]
        for (id, entry) in try r.object("queries") {
            let q: RecordReader
            do { q = try RecordReader(entry) } catch { throw RecordError("query \"\(id)\": \(error.message)") }
            var token: TableConfig.Token? = nil
            if let t = try q.optionalObject("token") {
                let tr = RecordReader(object: t)
                token = TableConfig.Token(updatedAt: try tr.string("updatedAt"), id: try tr.optionalString("id"))
            }
            queries[id] = TableConfig.Query(filter: try q.optionalString("filter"), lastPullAt: try q.optionalString("lastPullAt"),
                                            token: token)
        }
        value = TableConfig(name: try r.string("name"),
                            cursorMode: try r.oneOf("cursorMode", TableConfig.CursorMode.self, expected: "cursor or skip"),
                            queries: queries, hardDelete: try r.bool("hardDelete", default: false))
    }

    /// Format 1 is the first.
    public static func migrate(_ members: [String: JSONValue], from format: Int) throws(RecordError) -> [String: JSONValue] {
        throw FormatVersion.noOlderFormat(format, current: Self.format)
    }
}
