import TodoModel

/// The type a table column takes from the first non-null value written to it (protocol §4.7.4).
public enum ColumnType: String, Sendable {
    case string, number, boolean

    /// The type of a user value; nil for `null` (which fits every column) and for arrays and objects
    /// (which the protocol rejects before they reach storage).
    public init?(of value: JSONValue) {
        switch value {
        case .string: self = .string
        case .number: self = .number
        case .bool: self = .boolean
        case .null, .array, .object: return nil
        }
    }
}

/// One row as stored. Dates are Unix milliseconds (the protocol stores ms precision, §4.3.3).
public struct StoredRow: Sendable, Equatable {
    /// The spelling used by the insert; lookups ignore case (`id.lowercased()`, §4.2.4).
    public var id: String
    /// User columns; may hold `.null` (explicitly set null).
    public var columns: [String: JSONValue]
    public var createdAt: Int64
    public var updatedAt: Int64
    public var version: UInt64
    public var deleted: Bool

    public init(id: String, columns: [String: JSONValue], createdAt: Int64, updatedAt: Int64, version: UInt64,
                deleted: Bool = false)
    {
        self.id = id
        self.columns = columns
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.version = version
        self.deleted = deleted
    }

    /// The key ids are matched by (§4.2.4).
    var key: StoredRowKey { StoredRowKey(id: id) }
}

/// An id as rows are looked up: its lower-case form, compared by Unicode scalars (§4.2.4, §4.2.5).
///
/// Why not a plain `String` key: Swift's `String ==` (and so `Dictionary<String, _>`) treats
/// canonically equivalent strings as equal, so `"\u{e9}"` and `"e\u{301}"` would be one row, while the
/// protocol compares ids by scalar values. Equality and hashing here use the UTF-8 bytes instead.
struct StoredRowKey: Hashable, Sendable {
    let lowercased: String

    init(id: String) { lowercased = id.lowercased() }

    static func == (a: StoredRowKey, b: StoredRowKey) -> Bool { UTF8Bytes.equal(a.lowercased, b.lowercased) }

    func hash(into hasher: inout Hasher) {
        var text = lowercased
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

/// What storage knows about a table besides its rows.
public struct TableSchema: Sendable, Equatable {
    /// The configured spelling; the table is matched ignoring case.
    public var name: String
    public var softDelete: Bool
    /// Every column ever set; a nil type means only `null` has been seen so far.
    public var columns: [String: ColumnType?]

    public init(name: String, softDelete: Bool, columns: [String: ColumnType?] = [:]) {
        self.name = name
        self.softDelete = softDelete
        self.columns = columns
    }
}

extension StoredRow {
    /// Order of the incremental pull: (updatedAt, id by Unicode scalars) (protocol §4.2.5, §10.5).
    @inline(__always)
    func precedesInUpdateOrder(_ other: StoredRow) -> Bool {
        if updatedAt != other.updatedAt { return updatedAt < other.updatedAt }
        return id.scalarLess(other.id)
    }
}
