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

    init(id: String) { lowercased = UTF8Text.lowercased(id) }

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
    /// Strings (protocol §4.2) or integers the table hands out; fixed when the table is created.
    public var idType: TableIDType
    /// Every column ever set; a nil type means only `null` has been seen so far.
    public var columns: [String: ColumnType?]

    public init(name: String, softDelete: Bool, idType: TableIDType = .string, columns: [String: ColumnType?] = [:]) {
        self.name = name
        self.softDelete = softDelete
        self.idType = idType
        self.columns = columns
    }
}

/// How a table's ids are made (issue 17 item 6): strings that clients choose or the server makes
/// as UUIDs (protocol §4.2), or `autoIncrement` integers the server hands out 1, 2, 3, … as a SQL
/// `IDENTITY` column does for Mobile Services and Mobile Apps tables with integer ids.
public enum TableIDType: String, Sendable, CaseIterable {
    case string, autoIncrement
}

/// The ids of an `autoIncrement` table as storage keeps them: the integer as 16 decimal digits,
/// zero-padded, so that the order of the id and (updatedAt, id) indexes, which compare ids by
/// Unicode scalars, is the numeric order. Answers show the integer as a JSON number.
public enum IntegerID {
    /// The largest id: integers above 2^53 cannot pass through a JSON number exactly.
    public static let maximum: UInt64 = 9_007_199_254_740_991
    static let digits = 16

    /// The stored form of `n` (1…`maximum`).
    public static func stored(_ n: UInt64) -> String {
        let text = String(n)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// The integer a stored id holds; nil for an id that is not one (a string-id table's).
    public static func value(ofStored id: String) -> UInt64? {
        guard id.utf8.count == digits, id.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return UInt64(id)
    }

    /// The integer an id written by a client means: decimal digits (a URL segment) from 1 to `maximum`.
    public static func parse(_ text: String) -> UInt64? {
        guard !text.isEmpty, text.utf8.count <= 20, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let n = UInt64(text), n >= 1, n <= maximum else { return nil }
        return n
    }

    /// The integer of a JSON number (a body's `id`), when it is a whole number from 1 to `maximum`.
    public static func parse(_ number: Double) -> UInt64? {
        guard number.rounded() == number, number >= 1, number <= Double(maximum) else { return nil }
        return UInt64(number)
    }

}

extension TableIDType {
    /// How answers, URLs and messages show a stored id: an integer id as its digits.
    public func display(_ storedID: String) -> String {
        guard self == .autoIncrement, let n = IntegerID.value(ofStored: storedID) else { return storedID }
        return String(n)
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
