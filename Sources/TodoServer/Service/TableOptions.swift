/// The settings an operator gives one table (issue 17 item 6), from `--table-config FILE` or
/// `--tables name:setting:…`. A nil setting was not given: a new table takes the default, an
/// existing one keeps what its log says.
public struct TableOptions: Sendable, Equatable {
    /// Soft delete (default) keeps deleted rows with `deleted: true`; hard delete removes them (§7.1).
    public var softDelete: Bool?
    /// String ids (default) or integers the server hands out. Kept in the table's log.
    public var idType: TableIDType?
    /// Whether a write may add a column (default true, protocol §4.7.4). Off: only the columns the
    /// table has (from `columns` or its log) may be set. A policy, not kept in the log.
    public var dynamicSchema: Bool?
    /// Columns the table has from the start, with their types.
    public var columns: [String: ColumnType] = [:]

    public init(softDelete: Bool? = nil, idType: TableIDType? = nil, dynamicSchema: Bool? = nil,
                columns: [String: ColumnType] = [:]) {
        self.softDelete = softDelete
        self.idType = idType
        self.dynamicSchema = dynamicSchema
        self.columns = columns
    }
}

/// Start-up: creates the configured tables with their settings, and checks an existing table's log
/// against them. A setting that differs from what the log says stops the start: turning soft delete
/// off would hide rows marked deleted as if they were live, turning it on would answer
/// `deleted: false` for nothing, and an id type cannot change under stored ids. So nothing is ever
/// reinterpreted silently.
enum TableSetup {
    struct Mismatch: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    static func prepare(_ configuration: ServiceConfiguration, _ storage: any TableStore) throws {
        for name in configuration.tables {
            let options = configuration.tableOptions[name.lowercased()] ?? TableOptions()
            guard let schema = try storage.schema(name) else {
                try storage.createTable(name, softDelete: options.softDelete ?? true, idType: options.idType ?? .string,
                                        columns: options.columns)
                continue
            }
            let source = configuration.tableOptionsSource ?? "the configuration"
            let log = storage.location(of: schema.name)
            if let soft = options.softDelete, soft != schema.softDelete {
                throw Mismatch(message: "table '\(schema.name)': \(source) sets softDelete \(soft), but \(log) was created "
                    + "with softDelete \(schema.softDelete); changing it would reinterpret the table's rows. Remove the "
                    + "setting to keep the table as it is, or give the new setting to a table of another name")
            }
            if let type = options.idType, type != schema.idType {
                throw Mismatch(message: "table '\(schema.name)': \(source) sets idType \"\(type.rawValue)\", but \(log) "
                    + "holds \"\(schema.idType.rawValue)\" ids, which cannot change. Remove the setting to keep the "
                    + "table as it is, or give the new setting to a table of another name")
            }
            var added: [String: ColumnType] = [:]
            for (column, type) in options.columns {
                switch schema.columns[column] {
                case .some(.some(let stored)) where stored != type:
                    throw Mismatch(message: "table '\(schema.name)': \(source) declares column '\(column)' as "
                        + "\(type.rawValue), but \(log) holds it as \(stored.rawValue). Declare it as "
                        + "\(stored.rawValue), or leave it out")
                case .some(.some): break
                default: added[column] = type
                }
            }
            if !added.isEmpty {
                try storage.write(name) { w in
                    for (column, type) in added { w.setColumnType(column, type) }
                }
            }
        }
    }

    static let headerName = "X-Todo-Table-Settings"

    /// The `X-Todo-Table-Settings` header of every answer about a table, so that a client can tell
    /// what the table does with deletes and ids (our replica reads it: hard delete, integer ids).
    /// Made once per setting (every answer about a table carries one; built by interpolation it
    /// cost about 1,100 instructions an answer).
    static func header(softDelete: Bool, idType: TableIDType) -> String {
        switch (softDelete, idType) {
        case (false, .string): headers[0]
        case (false, .autoIncrement): headers[1]
        case (true, .string): headers[2]
        case (true, .autoIncrement): headers[3]
        }
    }

    private static let headers = [(false, TableIDType.string), (false, .autoIncrement), (true, .string), (true, .autoIncrement)]
        .map { spell(softDelete: $0.0, idType: $0.1) }

    /// The header's text for one setting.
    static func spell(softDelete: Bool, idType: TableIDType) -> String {
        "softDelete=\(softDelete); idType=\(idType.rawValue)"
    }
}
