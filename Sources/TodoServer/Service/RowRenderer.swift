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
