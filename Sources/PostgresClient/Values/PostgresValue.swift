/// A bound parameter (`$1`, `$2`…). Values always travel apart from the SQL text, in the Bind
/// message, so a value can never become SQL. Each is sent in text format with its type named in
/// Parse, so the server never has to guess it.
public enum PostgresValue: Sendable, Equatable {
    case null
    case text(String)
    /// int8; the server casts it to int4/int2 columns on INSERT and UPDATE (with a range check).
    case int(Int64)
    /// int4, for functions and operators that take int4 only (`pg_terminate_backend($1)`).
    case int32(Int32)
    case bool(Bool)
    case bytea([UInt8])
    case double(Double)
    /// Exact decimal text such as `"-12.50"` (digits, one optional point, an optional exponent).
    case numeric(String)
    /// JSON text, stored as jsonb (the server parses and validates it).
    case jsonb(String)
    /// JSON text, stored as json (kept exactly as written).
    case json(String)
    case timestamptz(PostgresTimestamp)

    /// The type OID named in Parse (0: unspecified, for NULL, so it fits any column).
    var typeOID: UInt32 {
        switch self {
        case .null: return 0
        case .text: return PostgresType.text
        case .int: return PostgresType.int8
        case .int32: return PostgresType.int4
        case .bool: return PostgresType.bool
        case .bytea: return PostgresType.bytea
        case .double: return PostgresType.float8
        case .numeric: return PostgresType.numeric
        case .jsonb: return PostgresType.jsonb
        case .json: return PostgresType.json
        case .timestamptz: return PostgresType.timestamptz
        }
    }

    /// The text-format bytes, or nil for NULL. Text cannot hold a NUL byte in PostgreSQL, so one
    /// is refused here rather than by the server.
    func encoded(position: Int) throws(PostgresError) -> [UInt8]? {
        switch self {
        case .null: return nil
        case .text(let text), .jsonb(let text), .json(let text):
            let bytes = Array(text.utf8)
            guard !bytes.contains(0) else {
                throw .invalidParameter("parameter $\(position) holds a NUL character, which PostgreSQL text cannot store; send it as bytea")
            }
            return bytes
        case .int(let value): return Array(String(value).utf8)
        case .int32(let value): return Array(String(value).utf8)
        case .bool(let value): return [value ? UInt8(ascii: "t") : UInt8(ascii: "f")]
        case .bytea(let bytes):
            let hex = Array("0123456789abcdef".utf8)
            var out: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
            out.reserveCapacity(2 + bytes.count * 2)
            for byte in bytes { out.append(hex[Int(byte >> 4)]); out.append(hex[Int(byte & 0xF)]) }
            return out
        case .double(let value):
            if value.isNaN { return Array("NaN".utf8) }
            if value.isInfinite { return Array((value < 0 ? "-Infinity" : "Infinity").utf8) }
            return Array(value.description.utf8)  // shortest text that reads back as the same Double
        case .numeric(let text):
            guard Self.isDecimal(text) else {
                throw .invalidParameter("parameter $\(position) is not a decimal number: \(text)")
            }
            return Array(text.utf8)
        case .timestamptz(let timestamp): return Array(timestamp.postgresText.utf8)
        }
    }

    /// `-12.5`, `3`, `1.5e-3`, `NaN`: what numeric_in takes, checked before the value leaves.
    static func isDecimal(_ text: String) -> Bool {
        if text == "NaN" { return true }
        var chars = Substring(text)
        if chars.first == "-" || chars.first == "+" { chars = chars.dropFirst() }
        var mantissa = chars, exponent: Substring?
        if let e = chars.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            mantissa = chars[..<e]
            exponent = chars[chars.index(after: e)...]
        }
        let parts = mantissa.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.contains(where: { !$0.isEmpty }),
              parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }) else { return false }
        if var exponent {
            if exponent.first == "-" || exponent.first == "+" { exponent = exponent.dropFirst() }
            guard !exponent.isEmpty, exponent.allSatisfy(\.isASCIIDigit) else { return false }
        }
        return true
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

extension PostgresValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByFloatLiteral, ExpressibleByNilLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(nilLiteral: ()) { self = .null }
}

/// The type OIDs the client names and decodes (pg_type.oid; fixed for built-in types).
public enum PostgresType {
    public static let bool: UInt32 = 16
    public static let bytea: UInt32 = 17
    public static let name: UInt32 = 19
    public static let int8: UInt32 = 20
    public static let int2: UInt32 = 21
    public static let int4: UInt32 = 23
    public static let text: UInt32 = 25
    public static let oid: UInt32 = 26
    public static let json: UInt32 = 114
    public static let float4: UInt32 = 700
    public static let float8: UInt32 = 701
    public static let bpchar: UInt32 = 1042
    public static let varchar: UInt32 = 1043
    public static let timestamp: UInt32 = 1114
    public static let timestamptz: UInt32 = 1184
    public static let numeric: UInt32 = 1700
    public static let uuid: UInt32 = 2950
    public static let jsonb: UInt32 = 3802
}
