/// A row as the evaluator sees it: a value for every member a query can name.
///
/// Why a protocol: the server evaluates up to 100,000 stored rows per query and the replica
/// evaluates its local items; each conforms its own row type, and the generic evaluator is
/// specialised for it, with no boxing per row.
public protocol FilterRow {
    /// The member's value: system properties as §8.5 types them (`id`/`version` strings, dates as
    /// `.date`, `deleted` a boolean), a user column's value, or `.null` when the row has none.
    func value(of member: ODataMember) -> FilterValue
}

/// A row given as a closure, for tests and one-off use.
public struct FilterRowFunction: FilterRow {
    public let lookup: (ODataMember) -> FilterValue

    public init(_ lookup: @escaping (ODataMember) -> FilterValue) {
        self.lookup = lookup
    }

    public func value(of member: ODataMember) -> FilterValue { lookup(member) }
}

/// Evaluation of protocol §8.6. It never fails: a type mismatch gives null ("unknown").
extension FilterExpression {
    /// True when the filter selects the row: the value is exactly `true` (§8.6.1, §8.6.3).
    public func matches<Row: FilterRow>(_ row: Row) -> Bool {
        evaluate(row).isTrue
    }

    /// The value of the expression for `row`; `.null` also means "unknown".
    public func evaluate<Row: FilterRow>(_ row: Row) -> FilterValue {
        switch node {
        case .literal(let value):
            return value
        case .member(let member):
            return row.value(of: member)
        case .not(let operand):
            if case .bool(let b) = operand.evaluate(row) { return .bool(!b) }
            return .null
        case .negate(let operand):
            if case .number(let x) = operand.evaluate(row) { return .number(-x) }
            return .null
        case .and(let operands):
            // false wins over unknown; unknown wins over true (§8.6.3).
            var unknown = false
            for operand in operands {
                switch operand.evaluate(row) {
                case .bool(false): return .bool(false)
                case .bool(true): continue
                default: unknown = true
                }
            }
            return unknown ? .null : .bool(true)
        case .or(let operands):
            var unknown = false
            for operand in operands {
                switch operand.evaluate(row) {
                case .bool(true): return .bool(true)
                case .bool(false): continue
                default: unknown = true
                }
            }
            return unknown ? .null : .bool(false)
        case .binary(let op, let lhs, let rhs):
            let left = lhs.evaluate(row)
            let right = rhs.evaluate(row)
            return op.isComparison
                ? FilterOperators.compare(op, left, right)
                : FilterOperators.arithmetic(op, left, right)
        case .call(let function, let arguments):
            return FilterFunctions.call(function, arguments, row)
        }
    }
}

/// Comparison and arithmetic (§8.6.2, §8.6.4).
enum FilterOperators {
    static func compare(_ op: FilterBinaryOperator, _ lhs: FilterValue, _ rhs: FilterValue) -> FilterValue {
        if lhs.isNull || rhs.isNull {
            switch op {
            case .eq: return .bool(lhs.isNull && rhs.isNull)
            case .ne: return .bool(lhs.isNull != rhs.isNull)
            default: return .null
            }
        }
        guard let order = FilterComparison.compare(lhs, rhs) else { return .null }
        switch op {
        case .eq: return .bool(order == 0)
        case .ne: return .bool(order != 0)
        case .gt: return .bool(order > 0)
        case .ge: return .bool(order >= 0)
        case .lt: return .bool(order < 0)
        case .le: return .bool(order <= 0)
        case .add, .sub, .mul, .div, .mod: return .null
        }
    }

    /// Numbers only; null for any other operand, for division by zero, and for a result that is
    /// not a finite double (it could not be written as JSON).
    static func arithmetic(_ op: FilterBinaryOperator, _ lhs: FilterValue, _ rhs: FilterValue) -> FilterValue {
        guard case .number(let a) = lhs, case .number(let b) = rhs else { return .null }
        let result: Double
        switch op {
        case .add: result = a + b
        case .sub: result = a - b
        case .mul: result = a * b
        case .div:
            guard b != 0 else { return .null }
            result = a / b
        case .mod:
            guard b != 0 else { return .null }
            // Truncated remainder: the sign of the dividend (§8.6.4).
            result = a.truncatingRemainder(dividingBy: b)
        case .eq, .ne, .gt, .ge, .lt, .le: return .null
        }
        return result.isFinite ? .number(result) : .null
    }
}
