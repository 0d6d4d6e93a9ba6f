import TodoModel

/// A value during filter evaluation: the five types of protocol §8.6.1.
///
/// Why `null` also stands for "unknown": the three-valued logic of §8.6.3 is SQL's, where the
/// unknown truth value is the null boolean. `x eq null` is then true for an unknown `x`, as in SQL's
/// `IS NULL`.
public enum FilterValue: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case date(WireInstant)

    /// The value of a stored user property. Arrays and objects cannot be stored (§4.7.2) and read as null.
    public init(_ json: JSONValue) {
        switch json {
        case .bool(let b): self = .bool(b)
        case .number(let d): self = .number(d)
        case .string(let s): self = .string(s)
        case .null, .array, .object: self = .null
        }
    }

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// True only for `.bool(true)`: a row is selected only when the filter is true (§8.6.1).
    public var isTrue: Bool {
        if case .bool(true) = self { return true }
        return false
    }

    /// The instant of a date, or of a string in a §4.3.2 form.
    public var instant: WireInstant? {
        switch self {
        case .date(let d): return d
        case .string(let s): return WireInstant(wireText: s)
        default: return nil
        }
    }
}

extension FilterValue: Equatable {
    /// Structural equality for tests and AST comparison (strings by Unicode scalars; a string and a
    /// date are never equal here). Filter semantics are in `FilterComparison`.
    public static func == (lhs: FilterValue, rhs: FilterValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.number(a), .number(b)): return a == b
        case let (.string(a), .string(b)): return a.scalarEquals(b)
        case let (.date(a), .date(b)): return a == b
        default: return false
        }
    }
}

/// The orderings of protocol §8.6.2 (filters) and §8.8 (`$orderby`).
public enum FilterComparison {
    /// The order of two non-null values of comparable types, or nil when §8.6.2 says "unknown":
    /// different types (except date and a string that parses as a date), or a null operand.
    /// Returns -1, 0 or 1.
    public static func compare(_ lhs: FilterValue, _ rhs: FilterValue) -> Int? {
        switch (lhs, rhs) {
        case let (.number(a), .number(b)): return a < b ? -1 : (a == b ? 0 : (a > b ? 1 : nil))
        case let (.string(a), .string(b)): return compareScalars(a, b)
        case let (.bool(a), .bool(b)): return a == b ? 0 : (a ? 1 : -1)
        case let (.date(a), .date(b)): return compareTicks(a, b)
        case let (.date(a), .string(s)):
            guard let b = WireInstant(wireText: s) else { return nil }
            return compareTicks(a, b)
        case let (.string(s), .date(b)):
            guard let a = WireInstant(wireText: s) else { return nil }
            return compareTicks(a, b)
        default: return nil
        }
    }

    /// The total order of `$orderby` (§8.8): type rank null < boolean < number < string < date,
    /// then the order within the type. Returns -1, 0 or 1.
    public static func orderingCompare(_ lhs: FilterValue, _ rhs: FilterValue) -> Int {
        let (l, r) = (rank(lhs), rank(rhs))
        if l != r { return l < r ? -1 : 1 }
        if case .number(let a) = lhs, case .number(let b) = rhs, a.isNaN || b.isNaN {
            // Cannot come from stored JSON; ordered first so the order stays total.
            return a.isNaN == b.isNaN ? 0 : (a.isNaN ? -1 : 1)
        }
        return compare(lhs, rhs) ?? 0
    }

    /// Unicode scalar order (§4.2.5), never Swift's canonical-equivalence `<`.
    public static func compareScalars(_ a: String, _ b: String) -> Int {
        // UTF-8 byte order is Unicode scalar order, and the bytes are read in place.
        var left = a.utf8.makeIterator()
        var right = b.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case let (x?, y?): if x != y { return x < y ? -1 : 1 }
            }
        }
    }

    private static func compareTicks(_ a: WireInstant, _ b: WireInstant) -> Int {
        a.ticks < b.ticks ? -1 : (a.ticks == b.ticks ? 0 : 1)
    }

    private static func rank(_ value: FilterValue) -> Int {
        switch value {
        case .null: return 0
        case .bool: return 1
        case .number: return 2
        case .string: return 3
        case .date: return 4
        }
    }
}
