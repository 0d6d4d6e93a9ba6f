/// A result column: its name and its type OID (see `PostgresType`).
public struct PostgresColumn: Sendable, Equatable {
    public let name: String
    public let typeOID: UInt32
}

/// One result row. Cells stay in PostgreSQL's text format until decoded, and decoding checks the
/// column's type, so asking for the wrong type (or a value from NULL) is an error, never a guess.
///
///     let rows = try connection.query("SELECT id, done FROM items WHERE owner = $1", [.text(owner)])
///     let id = try rows[0].decode("id", as: Int64.self)
///     let note = try rows[0].decode("note", as: String?.self)   // NULL -> nil
public struct PostgresRow: Sendable {
    public let columns: [PostgresColumn]
    let cells: [[UInt8]?]

    init(columns: [PostgresColumn], cells: [[UInt8]?]) {
        self.columns = columns
        self.cells = cells
    }

    public func decode<T: PostgresDecodable>(_ index: Int, as type: T.Type = T.self) throws(PostgresError) -> T {
        guard columns.indices.contains(index), cells.indices.contains(index) else {
            throw .decoding("no column \(index): the row has \(columns.count)")
        }
        return try T(postgresCell: cells[index], column: columns[index])
    }

    public func decode<T: PostgresDecodable>(_ name: String, as type: T.Type = T.self) throws(PostgresError) -> T {
        guard let index = columns.firstIndex(where: { $0.name == name }) else {
            throw .decoding("no column \"\(name)\": the row has \(columns.map(\.name).joined(separator: ", "))")
        }
        return try decode(index, as: type)
    }

    /// True when the cell is SQL NULL.
    public func isNull(_ index: Int) -> Bool { cells.indices.contains(index) && cells[index] == nil }
}

/// A Swift type a column can be read as. Conformances check the column's type OID.
public protocol PostgresDecodable {
    init(postgresCell bytes: [UInt8]?, column: PostgresColumn) throws(PostgresError)
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public init(postgresCell bytes: [UInt8]?, column: PostgresColumn) throws(PostgresError) {
        guard let bytes else { self = .none; return }
        self = .some(try Wrapped(postgresCell: bytes, column: column))
    }
}

/// The shared checks: the column has one of the accepted types, the cell is not NULL, and its text parses.
enum CellText {
    static func read<T>(_ bytes: [UInt8]?, _ column: PostgresColumn, as name: String, accepting types: Set<UInt32>,
                        _ parse: (String) -> T?) throws(PostgresError) -> T {
        guard types.contains(column.typeOID) else {
            throw .decoding("column \"\(column.name)\" has type OID \(column.typeOID), which cannot be read as \(name)")
        }
        guard let bytes else {
            throw .decoding("column \"\(column.name)\" is NULL; decode it as \(name)? to accept NULL")
        }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let value = parse(text) else {
            throw .decoding("column \"\(column.name)\" holds \"\(text.prefix(64))\", which is not a valid \(name)")
        }
        return value
    }
}

extension String: PostgresDecodable {
    /// text, varchar, char, name, uuid, json and jsonb (as their JSON text), numeric.
    public init(postgresCell bytes: [UInt8]?, column: PostgresColumn) throws(PostgresError) {
        self = try CellText.read(bytes, column, as: "String", accepting: [
            PostgresType.text, PostgresType.varchar, PostgresType.bpchar, PostgresType.name, PostgresType.uuid,
            PostgresType.json, PostgresType.jsonb, PostgresType.numeric,
        ]) { $0 }
    }
}

extension Int64: PostgresDecodable {
    public init(postgresCell bytes: [UInt8]?, column: PostgresColumn) throws(PostgresError) {
        self = try CellText.read(bytes, column, as: "Int64",
                                 accepting: [PostgresType.int8, PostgresType.int4, PostgresType.int2, PostgresType.oid]) { Int64($0) }
    }
}

extension Int: PostgresDecodable {
    public init(postgresCell bytes: [UInt8]?, column: PostgresColumn) throws(PostgresError) {
        self = try CellText.read(bytes, column, as: "Int",
                                 accepting: [PostgresType.int8, PostgresType.int4, PostgresType.int2, PostgresType.oid]) { Int($0) }
    }
}

extension Int32: PostgresDecodable {
    public init(postgresCell bytes: [UInt8]?, column: PostgresColumn) throws(PostgresError) {
        self = try CellText.read(bytes, column, as: "Int32", accepting: [PostgresType.int4, PostgresType.int2]) { Int32($0) }
    }
}

extension Bool: PostgresDecodable {
    public init(postgresCell bytes: [UInt8]?, column: PostgresColumn) throws(PostgresError) {
        self = try CellText.read(bytes, column, as: "Bool", accepting: [PostgresType.bool]) {
            $0 == "t" ? true : $0 == "f" ? false : nil
        }
    }
}

extension Double: PostgresDecodable {
    /// float8 and float4 exactly; numeric rounded to the nearest Double.
    public init(postgresCell bytes: [UInt8]?, column: PostgresColumn) throws(PostgresError) {
        self = try CellText.read(bytes, column, as: "Double",
                                 accepting: [PostgresType.float8, PostgresType.float4, PostgresType.numeric]) { Double($0) }
    }
}

extension PostgresTimestamp: PostgresDecodable {
    public init(postgresCell bytes: [UInt8]?, column: PostgresColumn) throws(PostgresError) {
        self = try CellText.read(bytes, column, as: "PostgresTimestamp", accepting: [PostgresType.timestamptz]) {
            PostgresTimestamp(postgresText: $0)
        }
    }
}

/// bytea: the bytes themselves, read from the `\x` hex output format.
extension Array: PostgresDecodable where Element == UInt8 {
    public init(postgresCell bytes: [UInt8]?, column: PostgresColumn) throws(PostgresError) {
        self = try CellText.read(bytes, column, as: "[UInt8] (bytea)", accepting: [PostgresType.bytea]) { text in
            let hex = Array(text.utf8)
            guard hex.count >= 2, hex[0] == UInt8(ascii: "\\"), hex[1] == UInt8(ascii: "x"), hex.count % 2 == 0 else { return nil }
            func nibble(_ c: UInt8) -> UInt8? {
                switch c {
                case 48...57: return c - 48
                case 97...102: return c - 87
                case 65...70: return c - 55
                default: return nil
                }
            }
            var out: [UInt8] = []
            out.reserveCapacity(hex.count / 2 - 1)
            var i = 2
            while i < hex.count {
                guard let high = nibble(hex[i]), let low = nibble(hex[i + 1]) else { return nil }
                out.append(high << 4 | low)
                i += 2
            }
            return out
        }
    }
}
