/// A JSON value with exact, deterministic semantics.
///
/// Why not `Codable`: records are dynamic (any user field), numbers must follow the protocol's
/// double rules, and every file must be written byte-for-byte the same for the same data, which
/// the toolchain's encoders do not promise.
///
/// Equality follows sync.md §1.3: numbers compare as doubles (`1 == 1.0`), strings by Unicode
/// scalar values (no canonical equivalence, unlike Swift's `String ==`).
public enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

extension JSONValue: Equatable {
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.number(a), .number(b)): return a == b
        case let (.string(a), .string(b)): return a.scalarEquals(b)
        case let (.array(a), .array(b)): return a.count == b.count && zip(a, b).allSatisfy { $0 == $1 }
        case let (.object(a), .object(b)):
            guard a.count == b.count else { return false }
            for (key, value) in a {
                guard let other = b[key], other == value else { return false }
            }
            return true
        default: return false
        }
    }
}

extension JSONValue: Hashable {
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let b): hasher.combine(1); hasher.combine(b)
        case .number(let d): hasher.combine(2); hasher.combine(d == 0 ? 0 : d)
        case .string(let s): hasher.combine(3); for scalar in s.unicodeScalars { hasher.combine(scalar.value) }
        case .array(let a): hasher.combine(4); hasher.combine(a.count); for v in a { v.hash(into: &hasher) }
        case .object(let o):
            hasher.combine(5)
            for key in o.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                hasher.combine(key)
                o[key]!.hash(into: &hasher)
            }
        }
    }
}

extension String {
    /// Equality by Unicode scalar values, as the protocol requires (no normalisation).
    public func scalarEquals(_ other: String) -> Bool {
        unicodeScalars.elementsEqual(other.unicodeScalars)
    }

    /// Ordering by Unicode scalar values (protocol §4.2.5); Swift's `<` must not be used for ids.
    public func scalarLess(_ other: String) -> Bool {
        unicodeScalars.lexicographicallyPrecedes(other.unicodeScalars) { $0.value < $1.value }
    }
}

// MARK: - Accessors

extension JSONValue {
    public var objectValue: [String: JSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var numberValue: Double? {
        if case .number(let d) = self { return d }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// An integer when the value is a number with no fraction that fits in `Int`.
    public var intValue: Int? {
        guard case .number(let d) = self, d.rounded() == d, abs(d) <= 9_007_199_254_740_992 else { return nil }
        return Int(d)
    }

    /// The JSON type name, for error messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByNilLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var o: [String: JSONValue] = [:]
        for (k, v) in elements { o[k] = v }
        self = .object(o)
    }
}
