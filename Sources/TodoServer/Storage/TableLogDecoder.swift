import TodoModel

/// Reads records back from their JSON. Strict: a member that is missing, extra or of the wrong type
/// means the file is not what this version wrote, which is reported, never guessed around.
enum TableLogDecoder {
    struct Failure: Error { var reason: String }

    static func header(_ bytes: ArraySlice<UInt8>) throws(Failure) -> TableLogHeader {
        let o = try object(parse(bytes), "the header")
        guard o["format"]?.stringValue == TableLogHeader.format else {
            throw Failure(reason: "not a table log (no \"format\": \"\(TableLogHeader.format)\" header)")
        }
        let version = try integer(o["formatVersion"], "formatVersion")
        guard version == Int64(TableLogHeader.formatVersion) else {
            throw Failure(reason: "format version \(version) is not supported (this server reads version "
                + "\(TableLogHeader.formatVersion)); use the server version that wrote it")
        }
        try expectMembers(o, ["format", "formatVersion", "idType", "lastId", "lastUpdatedAt", "lastVersion", "softDelete", "table"])
        guard case .string(let table)? = o["table"] else { throw Failure(reason: "\"table\" is not a string") }
        guard case .bool(let softDelete)? = o["softDelete"] else {
            throw Failure(reason: "\"softDelete\" is not a boolean")
        }
        // Logs written before issue 17 item 6 have neither member: string ids.
        var idType = TableIDType.string
        if let member = o["idType"] {
            guard case .string(let text) = member, let type = TableIDType(rawValue: text) else {
                throw Failure(reason: "\"idType\" is not \"string\" or \"autoIncrement\"")
            }
            idType = type
        }
        return TableLogHeader(table: table, softDelete: softDelete,
                              lastVersion: try unsigned(o["lastVersion"], "lastVersion"),
                              lastUpdatedAt: try integer(o["lastUpdatedAt"], "lastUpdatedAt"),
                              idType: idType, lastID: o["lastId"] == nil ? 0 : try unsigned(o["lastId"], "lastId"))
    }

    static func commit(_ bytes: ArraySlice<UInt8>) throws(Failure) -> TableCommit {
        let o = try object(parse(bytes), "a record")
        try expectMembers(o, ["columns", "delete", "put", "stamp"])
        var commit = TableCommit()
        if let columns = o["columns"] {
            for (name, type) in try object(columns, "\"columns\"") {
                switch type {
                case .null: commit.columns.append((name, nil))
                case .string(let text):
                    guard let t = ColumnType(rawValue: text) else {
                        throw Failure(reason: "unknown column type \"\(text)\" for \"\(name)\"")
                    }
                    commit.columns.append((name, t))
                default: throw Failure(reason: "the type of column \"\(name)\" is not a string or null")
                }
            }
        }
        if let removals = o["delete"] {
            guard case .array(let ids) = removals else { throw Failure(reason: "\"delete\" is not an array") }
            for id in ids {
                guard case .string(let s) = id else { throw Failure(reason: "a deleted id is not a string") }
                commit.removals.append(s)
            }
        }
        if let puts = o["put"] {
            guard case .array(let rows) = puts else { throw Failure(reason: "\"put\" is not an array") }
            commit.puts.reserveCapacity(rows.count)
            for row in rows { commit.puts.append(try self.row(row)) }
        }
        if let stamp = o["stamp"] {
            let s = try object(stamp, "\"stamp\"")
            try expectMembers(s, ["updatedAt", "version"])
            commit.stamp = TableStamp(version: try unsigned(s["version"], "version"),
                                      updatedAt: try integer(s["updatedAt"], "updatedAt"))
        }
        return commit
    }

    private static func row(_ value: JSONValue) throws(Failure) -> StoredRow {
        let o = try object(value, "a row")
        try expectMembers(o, ["createdAt", "deleted", "id", "updatedAt", "values", "version"])
        guard case .string(let id)? = o["id"] else { throw Failure(reason: "a row's \"id\" is not a string") }
        guard case .bool(let deleted)? = o["deleted"] else {
            throw Failure(reason: "row \"\(id)\": \"deleted\" is not a boolean")
        }
        guard case .object(let values)? = o["values"] else {
            throw Failure(reason: "row \"\(id)\": \"values\" is not an object")
        }
        return StoredRow(id: id, columns: values, createdAt: try integer(o["createdAt"], "createdAt"),
                         updatedAt: try integer(o["updatedAt"], "updatedAt"),
                         version: try unsigned(o["version"], "version"), deleted: deleted)
    }

    private static func parse(_ bytes: ArraySlice<UInt8>) throws(Failure) -> JSONValue {
        do {
            return try JSONValue.parse(Array(bytes))
        } catch {
            throw Failure(reason: "invalid JSON: \(error)")
        }
    }

    private static func object(_ value: JSONValue, _ what: String) throws(Failure) -> [String: JSONValue] {
        guard case .object(let o) = value else { throw Failure(reason: "\(what) is not a JSON object") }
        return o
    }

    private static func expectMembers(_ o: [String: JSONValue], _ allowed: Set<String>) throws(Failure) {
        for key in o.keys where !allowed.contains(key) {
            throw Failure(reason: "unexpected member \"\(key)\"")
        }
    }

    private static func integer(_ value: JSONValue?, _ name: String) throws(Failure) -> Int64 {
        guard case .number(let d)? = value, d.rounded() == d, abs(d) <= Double(TableLogCoder.maximumInteger) else {
            throw Failure(reason: "\"\(name)\" is missing or not an integer")
        }
        return Int64(d)
    }

    private static func unsigned(_ value: JSONValue?, _ name: String) throws(Failure) -> UInt64 {
        let n = try integer(value, name)
        guard n >= 0 else { throw Failure(reason: "\"\(name)\" is negative") }
        return UInt64(n)
    }
}
