import TableProtocol
import TodoBasics
import TodoModel

/// Turns a stored row into the JSON a generation expects (protocol §4, §4.8, §8.10).
///
/// Without `$select` a row shows every column of the schema it is rendered with (null where it set
/// none, §4.7.5) and always every column it has itself, even one that schema lacks: a row is shown
/// whole whatever schema it is paired with. Callers pass the schema of the row's own snapshot,
/// which lists all its columns anyway (issue 22); this makes half a row impossible here too.
///
/// Rows are written straight to bytes, members sorted by their UTF-8 bytes as the JSON writer sorts
/// keys, so the bytes are those of the row as a `JSONValue` object: building and sorting a
/// dictionary per row was a large part of an insert's CPU.
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

    enum Member { case id, column(String), system(SystemProperty) }

    /// One row as a compact JSON object.
    struct RenderedRow {
        var bytes: [UInt8]
        /// Whether it has a `__version` member (which gives a G1 answer its ETag).
        var showsVersion: Bool
        /// The version text, when a version member was written (the ETag reuses it).
        var versionText: String?
    }

    func renderObject(_ row: StoredRow, schema: TableSchema) -> RenderedRow {
        let listed = members(schema, wholeRow: row)
        var out: [UInt8] = [UInt8(ascii: "{")]
        out.reserveCapacity(256)
        var rendered = RenderedRow(bytes: [], showsVersion: false)
        for (j, m) in Self.order(listed).lazy.map({ listed[$0] }).enumerated() {
            if j > 0 { out.append(UInt8(ascii: ",")) }
            switch m.member {
            case .id: out.append(contentsOf: Self.idKey)
            case .system(let p): out.append(contentsOf: Self.systemKey(p, generation))
            case .column:
                JSONText.appendString(m.name, to: &out)
                out.append(UInt8(ascii: ":"))
            }
            if case .system(.version) = m.member {
                let text = VersionText.encode(row.version)
                JSONText.appendString(text, to: &out)
                rendered.versionText = text
            } else {
                Self.append(m.member, of: row, idType: schema.idType, to: &out)
            }
            if m.name == "__version" { rendered.showsVersion = true }
        }
        out.append(UInt8(ascii: "}"))
        rendered.bytes = out
        return rendered
    }

    /// `"name":` of the members whose name is fixed, made once: `id`, and each system property
    /// under its name in each generation (as `members` names them). Escaping and quoting those
    /// names for every row cost about 1,000 instructions a row.
    private static let idKey = key("id")
    private static let systemKeys: [[UInt8]] = [Generation.mobileServices, .mobileApps].flatMap { g in
        [SystemProperty.createdAt, .updatedAt, .version, .deleted].map { key(g.name($0)) }
    }

    private static func key(_ name: String) -> [UInt8] {
        var bytes: [UInt8] = []
        JSONText.appendString(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        return bytes
    }

    private static func systemKey(_ p: SystemProperty, _ generation: Generation) -> [UInt8] {
        let property = switch p {
        case .createdAt: 0
        case .updatedAt: 1
        case .version: 2
        case .deleted: 3
        }
        return systemKeys[(generation == .mobileApps ? 4 : 0) + property]
    }

    /// The positions of the members to write, sorted by name bytes; a name listed twice keeps its
    /// last member, as assigning into a dictionary did. Sorts positions by the first 8 bytes of
    /// each name as one integer, and finds a name listed twice next to its twin: comparing every
    /// pair of names cost 7,000 instructions a row. Names that are not all ASCII, for which `==`
    /// (Unicode equivalence) is not byte equality, take the pairwise way (`orderComparingPairs`).
    static func order(_ listed: [(name: String, member: Member)]) -> [Int] {
        var keys: [(prefix: UInt64, index: Int)] = []
        keys.reserveCapacity(listed.count)
        for (i, m) in listed.enumerated() {
            var name = m.name  // withUTF8 is mutating; a native string is not copied
            let prefix = name.withUTF8 { bytes -> UInt64? in
                if bytes.contains(where: { $0 >= 0x80 }) { return nil }
                var p: UInt64 = 0
                for k in 0..<8 { p = p << 8 | (k < bytes.count ? UInt64(bytes[k]) : 0) }
                return p
            }
            guard let prefix else { return orderComparingPairs(listed) }
            keys.append((prefix, i))
        }
        keys.sort { a, b in
            if a.prefix != b.prefix { return a.prefix < b.prefix }
            let order = UTF8Bytes.compare(listed[a.index].name, listed[b.index].name)
            return order != 0 ? order < 0 : a.index < b.index
        }
        var order: [Int] = []
        order.reserveCapacity(keys.count)
        for (j, key) in keys.enumerated() {
            // Members of one name are adjacent, in the order listed: only the last is kept.
            if j + 1 < keys.count, keys[j + 1].prefix == key.prefix,
               UTF8Bytes.equal(listed[keys[j + 1].index].name, listed[key.index].name) { continue }
            order.append(key.index)
        }
        return order
    }

    /// `order(_:)` for any names: drops each member whose name (by `==`) is listed again later,
    /// then sorts the rest by name bytes.
    static func orderComparingPairs(_ listed: [(name: String, member: Member)]) -> [Int] {
        let kept = listed.indices.filter { i in !listed[(i + 1)...].contains(where: { $0.name == listed[i].name }) }
        return kept.sorted { UTF8Bytes.less(listed[$0].name, listed[$1].name) }
    }

    /// A JSON array of rows written straight to bytes: the member order is worked out once per
    /// page. A name listed twice keeps its first member.
    func renderArray(_ rows: [StoredRow], schema: TableSchema) -> [UInt8] {
        var members = members(schema)
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
            let start = out.count
            out.append(UInt8(ascii: "{"))
            var shown = 0  // the row's own columns written so far
            for (j, m) in members.enumerated() {
                if j > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: keys[j])
                if case .column(let name) = m.member {
                    if let value = row.columns[name] {
                        JSONText.appendValue(value, to: &out)
                        shown += 1
                    } else {
                        JSONText.appendValue(.null, to: &out)
                    }
                } else {
                    Self.append(m.member, of: row, idType: schema.idType, to: &out)
                }
            }
            out.append(UInt8(ascii: "}"))
            if select == nil && shown < row.columns.count {
                // A column the schema lacks: the row is written again, whole (see the type's doc).
                out.removeSubrange(start...)
                out.append(contentsOf: renderObject(row, schema: schema).bytes)
            }
        }
        out.append(UInt8(ascii: "]"))
        return out
    }

    /// The members by wire name, unsorted, in the order they are set: `id`, every column of the
    /// table (one the row never set is null, protocol §4.7.5), the columns of `wholeRow` the table
    /// lacks, the system properties; or `$select`.
    private func members(_ schema: TableSchema, wholeRow row: StoredRow? = nil) -> [(name: String, member: Member)] {
        var members: [(name: String, member: Member)] = []
        if let select {
            for name in select {
                if name.lowercased() == "id" { members.append(("id", .id)) }
                else if let p = SystemProperty(anySpelling: name) { members.append((generation.name(p), .system(p))) }
                else { members.append((name, .column(name))) }
            }
            return members
        }
        members.reserveCapacity(schema.columns.count + 5)
        members.append(("id", .id))
        for name in schema.columns.keys { members.append((name, .column(name))) }
        for name in (row?.columns ?? [:]).keys where schema.columns[name] == nil { members.append((name, .column(name))) }
        if generation == .mobileApps {
            for p in SystemProperty.allCases { members.append((generation.name(p), .system(p))) }
        } else {
            for p in systemProperties { members.append((generation.name(p), .system(p))) }
        }
        return members
    }

    /// `idType`: an `autoIncrement` table's ids are JSON numbers (as the Azure clients' tests of
    /// such tables expect), kept as strings in storage (`IntegerID`).
    private static func append(_ member: Member, of row: StoredRow, idType: TableIDType, to out: inout [UInt8]) {
        switch member {
        case .id where idType == .autoIncrement: out.append(contentsOf: idType.display(row.id).utf8)
        case .id: JSONText.appendString(row.id, to: &out)
        case .column(let name): JSONText.appendValue(row.columns[name] ?? .null, to: &out)
        case .system(.createdAt): appendDate(row.createdAt, to: &out)
        case .system(.updatedAt): appendDate(row.updatedAt, to: &out)
        case .system(let p): JSONText.appendValue(value(p, row), to: &out)
        }
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
    static func etag(_ row: StoredRow) -> String { etag(versionText: VersionText.encode(row.version)) }

    static func etag(versionText: String) -> String { "\"" + versionText + "\"" }
}
