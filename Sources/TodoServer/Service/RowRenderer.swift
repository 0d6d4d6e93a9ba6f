import TableProtocol
import TodoBasics
import TodoModel

/// Turns a stored row into the JSON a generation expects (protocol §4, §4.8, §8.10).
struct RowRenderer {
    var generation: Generation
    /// G1: the system properties requested with `__systemproperties`. G2 always sends all four.
    var systemProperties: Set<SystemProperty>
    /// `$select`: exactly these members (nil = all).
    var select: [String]?

    /// For 409 and 412 bodies: every system property, whatever was requested (protocol §6.4).
    static func conflict(_ generation: Generation) -> RowRenderer {
        RowRenderer(generation: generation, systemProperties: Set(SystemProperty.allCases), select: nil)
    }

    func render(_ row: StoredRow, schema: TableSchema) -> JSONValue {
        if let select { return renderSelected(row, select) }
        var o: [String: JSONValue] = ["id": .string(row.id)]
        // Every column of the table appears; one the row never set is null (protocol §4.7.5).
        for name in schema.columns.keys { o[name] = row.columns[name] ?? .null }
        let properties = generation == .mobileApps ? Set(SystemProperty.allCases) : systemProperties
        for p in properties { o[generation.name(p)] = Self.value(p, row) }
        return .object(o)
    }

    private func renderSelected(_ row: StoredRow, _ names: [String]) -> JSONValue {
        var o: [String: JSONValue] = [:]
        for name in names {
            if name.lowercased() == "id" {
                o["id"] = .string(row.id)
            } else if let p = SystemProperty(anySpelling: name) {
                o[generation.name(p)] = Self.value(p, row)
            } else {
                o[name] = row.columns[name] ?? .null
            }
        }
        return .object(o)
    }

    /// A JSON array of rows written straight to bytes: the member order (sorted, as the JSON
    /// writer sorts) is worked out once per page instead of a dictionary per row.
    func renderArray(_ rows: [StoredRow], schema: TableSchema) -> [UInt8] {
        enum Member { case id, column(String), system(SystemProperty) }
        var members: [(name: String, member: Member)] = []
        if let select {
            for name in select {
                if name.lowercased() == "id" { members.append(("id", .id)) }
                else if let p = SystemProperty(anySpelling: name) { members.append((generation.name(p), .system(p))) }
                else { members.append((name, .column(name))) }
            }
        } else {
            members.append(("id", .id))
            for name in schema.columns.keys { members.append((name, .column(name))) }
            let properties = generation == .mobileApps ? Set(SystemProperty.allCases) : systemProperties
            for p in properties { members.append((generation.name(p), .system(p))) }
        }
        var seen = Set<String>()
        members = members.filter { seen.insert($0.name).inserted }
        members.sort { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        let keys: [[UInt8]] = members.map { m in
            var k: [UInt8] = []
            JSONText.appendString(m.name, to: &k)
            k.append(UInt8(ascii: ":"))
            return k
        }
        var out: [UInt8] = [UInt8(ascii: "[")]
        out.reserveCapacity(rows.count * 200)
        for (i, row) in rows.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "{"))
            for (j, m) in members.enumerated() {
                if j > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: keys[j])
                switch m.member {
                case .id: JSONText.appendString(row.id, to: &out)
                case .column(let name): JSONText.appendValue(row.columns[name] ?? .null, to: &out)
                case .system(.createdAt): Self.appendDate(row.createdAt, to: &out)
                case .system(.updatedAt): Self.appendDate(row.updatedAt, to: &out)
                case .system(let p): JSONText.appendValue(Self.value(p, row), to: &out)
                }
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
        return out
    }

    static func appendDate(_ ms: Int64, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        Timestamp.append(milliseconds: ms, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    static func value(_ p: SystemProperty, _ row: StoredRow) -> JSONValue {
        switch p {
        case .createdAt: return .string(Timestamp.format(milliseconds: row.createdAt))
        case .updatedAt: return .string(Timestamp.format(milliseconds: row.updatedAt))
        case .version: return .string(VersionText.encode(row.version))
        case .deleted: return .bool(row.deleted)
        }
    }

    /// The ETag of a row: its version in double quotes (protocol §4.4.3).
    static func etag(_ row: StoredRow) -> String { "\"" + VersionText.encode(row.version) + "\"" }
}
