import PostgresClient
import TableProtocol

/// The leaves of `$filter` that compile to SQL with the evaluator's exact results (see
/// `PostgresFilterSQL`): a member compared with a literal, and `startswith`, `endswith`,
/// `substringof` of a string member and a string literal. Values and column names are bound
/// parameters only.
///
/// Why these are exact: a user column is `r.fields -> name` (SQL NULL when missing); its JSON type
/// is tested before its value is read (`CASE`, so no cast ever meets another type). Strings compare
/// as `COLLATE "C"`, byte order of UTF-8, which is the evaluator's Unicode scalar order; numbers as
/// `float8`, the evaluator's `Double` (stored numbers are written from doubles); booleans with
/// false < true. A value of another type than the literal is "unknown" to the evaluator, even for
/// `eq`; a null or missing value is false for `eq`, true for `ne`, unknown for the others.
///
/// Not compiled (left to Swift): `tolower`/`toupper` (PostgreSQL's case mapping follows the
/// collation and differs from Unicode's default mapping, e.g. `ß`), `length` and the other
/// functions, arithmetic, dates compared with user columns or ids (a string that reads as a date
/// compares as one), `version`, `id` of `autoIncrement` tables, literals holding U+0000 (PostgreSQL
/// text cannot hold it), and comparisons of two members or two literals.
struct PostgresFilterTerms {
    private(set) var parameters: [PostgresValue]
    let integerIDs: Bool

    init(parameters: [PostgresValue], integerIDs: Bool) {
        self.parameters = parameters
        self.integerIDs = integerIDs
    }

    typealias Truth = PostgresFilterSQL.Truth

    // MARK: - Comparisons

    mutating func comparison(_ op: FilterBinaryOperator, _ lhs: FilterExpression, _ rhs: FilterExpression) -> Truth? {
        keepingUsedParameters { $0.comparisonTerm(op, lhs, rhs) }
    }

    mutating func call(_ function: FilterFunction, _ arguments: [FilterExpression]) -> Truth? {
        keepingUsedParameters { $0.callTerm(function, arguments) }
    }

    /// Drops what `body` bound when its SQL does not use it (not compiled, or a constant).
    private mutating func keepingUsedParameters(_ body: (inout Self) -> Truth?) -> Truth? {
        let count = parameters.count
        let truth = body(&self)
        if truth == nil || truth?.whenTrue == "false" { parameters.removeLast(parameters.count - count) }
        return truth
    }

    private mutating func comparisonTerm(_ op: FilterBinaryOperator, _ lhs: FilterExpression, _ rhs: FilterExpression) -> Truth? {
        if case .member(let member) = lhs.node, case .literal(let literal) = rhs.node {
            return compare(member, op, literal)
        }
        if case .literal(let literal) = lhs.node, case .member(let member) = rhs.node {
            return compare(member, op.mirrored, literal)
        }
        return nil
    }

    private mutating func compare(_ member: ODataMember, _ op: FilterBinaryOperator, _ literal: FilterValue) -> Truth? {
        if case .string(let text) = literal, text.utf8.contains(0) { return nil }
        if case .number(let d) = literal, !d.isFinite { return nil }  // float8 orders NaN; the evaluator calls it unknown
        switch member {
        case .column(let name):
            let field = "(r.fields -> \(bind(.text(name)))::text)"
            let isNull = "NOT COALESCE(jsonb_typeof(\(field)) IN ('string', 'number', 'boolean'), false)"
            let value: (type: String, sql: String, bound: PostgresValue)
            switch literal {
            case .null: return nullComparison(op, isNull: isNull)
            case .string(let s): value = ("string", "(r.fields ->> \(bind(.text(name)))::text) COLLATE \"C\"", .text(s))
            case .number(let d): value = ("number", "(\(field))::float8", .double(d))
            case .bool(let b): value = ("boolean", "(\(field))::boolean", .bool(b))
            case .date: return nil
            }
            let lit = bind(value.bound) + "::" + sqlType(value.bound)
            let holds = { (o: FilterBinaryOperator) in
                "CASE WHEN jsonb_typeof(\(field)) = '\(value.type)' THEN \(value.sql) \(o.sql) \(lit) ELSE false END"
            }
            return typedComparison(op, holds, isNull: isNull)
        case .id:
            guard !integerIDs else { return nil }
            switch literal {
            case .null: return nullComparison(op, isNull: "false")
            case .string(let s):
                let lit = bind(.text(s)) + "::text"
                return typedComparison(op, { "r.id \($0.sql) \(lit)" }, isNull: "false")
            case .number, .bool: return .unknown
            case .date: return nil
            }
        case .system(.createdAt), .system(.updatedAt):
            let column = member == .system(.createdAt) ? "r.created_at" : "r.updated_at"
            let ticks: Int64
            switch literal {
            case .null: return nullComparison(op, isNull: "false")
            case .date(let instant): ticks = instant.ticks
            case .string(let s):
                guard let instant = WireInstant(wireText: s) else { return .unknown }
                ticks = instant.ticks
            case .number, .bool: return .unknown
            }
            // Ticks of 100 ns, as the evaluator compares: literals may be finer than a millisecond.
            let lit = bind(.int(ticks)) + "::bigint"
            return typedComparison(op, { "(\(column)::numeric * 10000) \($0.sql) \(lit)" }, isNull: "false")
        case .system(.deleted):
            switch literal {
            case .null: return nullComparison(op, isNull: "false")
            case .bool(let b):
                let lit = bind(.bool(b)) + "::boolean"
                return typedComparison(op, { "r.deleted \($0.sql) \(lit)" }, isNull: "false")
            case .number, .string, .date: return .unknown
            }
        case .system:
            return nil
        }
    }

    /// `holds(o)`: the value has the literal's type and `value o literal` (never NULL).
    private func typedComparison(_ op: FilterBinaryOperator, _ holds: (FilterBinaryOperator) -> String, isNull: String) -> Truth {
        switch op {
        case .eq: return Truth(whenTrue: holds(.eq), whenFalse: "(\(holds(.ne)) OR \(isNull))")
        case .ne: return Truth(whenTrue: "(\(holds(.ne)) OR \(isNull))", whenFalse: holds(.eq))
        default: return Truth(whenTrue: holds(op), whenFalse: holds(op.complement))
        }
    }

    /// `x op null`: `eq` is true for a null value, `ne` for any other, the rest unknown (§8.6.2).
    private func nullComparison(_ op: FilterBinaryOperator, isNull: String) -> Truth {
        switch op {
        case .eq: return Truth(whenTrue: isNull, whenFalse: "NOT \(isNull)")
        case .ne: return Truth(whenTrue: "NOT \(isNull)", whenFalse: isNull)
        default: return .unknown
        }
    }

    // MARK: - String functions

    private mutating func callTerm(_ function: FilterFunction, _ arguments: [FilterExpression]) -> Truth? {
        guard arguments.count == 2 else { return nil }
        let (subject, pattern): (FilterExpression, FilterExpression)
        switch function {
        case .startswith, .endswith: (subject, pattern) = (arguments[0], arguments[1])
        case .substringof: (subject, pattern) = (arguments[1], arguments[0])
        default: return nil
        }
        guard case .literal(let literal) = pattern.node, case .member(let member) = subject.node else { return nil }
        let (isString, text): (String, String)
        switch member {
        case .column(let name):
            isString = "jsonb_typeof(r.fields -> \(bind(.text(name)))::text) = 'string'"
            text = "((r.fields ->> \(bind(.text(name)))::text) COLLATE \"C\")"
        case .id where !integerIDs:
            (isString, text) = ("true", "r.id")
        default:
            return nil
        }
        guard case .string(let s) = literal else { return .unknown }  // null, or not a string: null (§8.7)
        guard !s.utf8.contains(0) else { return nil }
        let p = bind(.text(s)) + "::text"
        let test: String
        switch function {
        case .startswith: test = "left(\(text), char_length(\(p))) = \(p)"
        case .endswith: test = "right(\(text), char_length(\(p))) = \(p)"
        default: test = "strpos(\(text), \(p)) > 0"
        }
        return Truth(whenTrue: "CASE WHEN \(isString) THEN \(test) ELSE false END",
                     whenFalse: "CASE WHEN \(isString) THEN NOT (\(test)) ELSE false END")
    }

    private mutating func bind(_ value: PostgresValue) -> String {
        parameters.append(value)
        return "$\(parameters.count)"
    }

    private func sqlType(_ value: PostgresValue) -> String {
        switch value {
        case .double: return "float8"
        case .bool: return "boolean"
        default: return "text"
        }
    }
}

extension FilterBinaryOperator {
    /// The same comparison with its operands swapped: `'a' lt x` is `x gt 'a'`.
    var mirrored: FilterBinaryOperator {
        switch self {
        case .gt: return .lt
        case .ge: return .le
        case .lt: return .gt
        case .le: return .ge
        default: return self
        }
    }

    /// The comparison true exactly when this one is false, for two comparable non-null values.
    var complement: FilterBinaryOperator {
        switch self {
        case .eq: return .ne
        case .ne: return .eq
        case .gt: return .le
        case .ge: return .lt
        case .lt: return .ge
        case .le: return .gt
        default: return self
        }
    }

    var sql: String {
        switch self {
        case .eq: return "="
        case .ne: return "<>"
        case .gt: return ">"
        case .ge: return ">="
        case .lt: return "<"
        case .le: return "<="
        default: return "="
        }
    }
}
