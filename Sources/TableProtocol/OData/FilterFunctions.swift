import TodoModel

/// The functions of protocol §8.7. A null argument gives null (concat included), and so does an
/// argument of the wrong type. Arity was checked by the parser; a wrong count here (a tree built by
/// hand) also gives null rather than a crash.
enum FilterFunctions {
    static func call<Row: FilterRow>(_ function: FilterFunction, _ arguments: [FilterExpression], _ row: Row)
        -> FilterValue
    {
        guard function.arity.contains(arguments.count) else { return .null }
        func string(_ i: Int) -> String? {
            if case .string(let s) = arguments[i].evaluate(row) { return s }
            return nil
        }
        func number(_ i: Int) -> Double? {
            if case .number(let d) = arguments[i].evaluate(row) { return d }
            return nil
        }

        switch function {
        case .substringof:
            guard let needle = string(0), let s = string(1) else { return .null }
            return .bool(ScalarText.contains(s, needle))
        case .startswith:
            guard let s = string(0), let prefix = string(1) else { return .null }
            return .bool(ScalarText.hasPrefix(s, prefix))
        case .endswith:
            guard let s = string(0), let suffix = string(1) else { return .null }
            return .bool(ScalarText.hasSuffix(s, suffix))
        case .indexof:
            guard let s = string(0), let t = string(1) else { return .null }
            return .number(Double(ScalarText.indexOf(t, in: s)))
        case .length:
            guard let s = string(0) else { return .null }
            return .number(Double(ScalarText.scalarCount(s)))
        case .tolower:
            // The standard library's mapping is Unicode's default one, with no locale.
            guard let s = string(0) else { return .null }
            return .string(s.lowercased())
        case .toupper:
            guard let s = string(0) else { return .null }
            return .string(s.uppercased())
        case .trim:
            guard let s = string(0) else { return .null }
            return .string(ScalarText.trim(s))
        case .concat:
            return concat(arguments, row)
        case .substring:
            guard let s = string(0), let start = number(1) else { return .null }
            var count: Int?
            if arguments.count == 3 {
                guard let n = number(2) else { return .null }
                count = clampedInt(n)
            }
            return .string(ScalarText.substring(s, from: clampedInt(start), count: count))
        case .replace:
            guard let s = string(0), let find = string(1), let replacement = string(2) else { return .null }
            return .string(ScalarText.replace(s, find, with: replacement))
        case .year, .month, .day, .hour, .minute, .second:
            guard let instant = arguments[0].evaluate(row).instant else { return .null }
            let parts = instant.utcParts
            let field: Int64
            switch function {
            case .year: field = parts.year
            case .month: field = parts.month
            case .day: field = parts.day
            case .hour: field = parts.hour
            case .minute: field = parts.minute
            default: field = parts.second
            }
            return .number(Double(field))
        case .round:
            // Halves away from zero: round(-2.5) = -3.
            guard let x = number(0) else { return .null }
            return .number(x.rounded(.toNearestOrAwayFromZero))
        case .floor:
            guard let x = number(0) else { return .null }
            return .number(x.rounded(.down))
        case .ceiling:
            guard let x = number(0) else { return .null }
            return .number(x.rounded(.up))
        }
    }

    /// Numbers and booleans as their JSON text, dates as their §4.3.1 text; null if any is null.
    private static func concat<Row: FilterRow>(_ arguments: [FilterExpression], _ row: Row) -> FilterValue {
        var result = ""
        for argument in arguments {
            switch argument.evaluate(row) {
            case .null: return .null
            case .string(let s): result += s
            case .number(let d): result += JSONValue.number(d).compactText
            case .bool(let b): result += b ? "true" : "false"
            case .date(let instant): result += instant.wireText
            }
        }
        return .string(result)
    }

    /// A scalar index or count from a double: truncated towards zero, negative as 0, and huge
    /// values capped, so no conversion can trap.
    private static func clampedInt(_ d: Double) -> Int {
        guard d > 0 else { return 0 }
        guard d < 1e15 else { return 1_000_000_000_000_000 }
        return Int(d.rounded(.towardZero))
    }
}
