import PostgresClient
import TableProtocol

/// The part of a `$filter` compiled to SQL (issue 18 item 3): a condition every matching row meets,
/// so the database returns fewer rows, and whether it is exact (met by the matching rows only),
/// so that a page's `LIMIT` can go to the database too. `QueryPlan` still evaluates the whole
/// filter in Swift on what is fetched, so a compiled part only ever has to keep every row the
/// evaluator keeps; an exact one keeps no other.
///
/// Why two conditions per node: the evaluator's logic has three values (§8.6.3: a type mismatch
/// or null is "unknown"), SQL's NULL does not behave the same under `NOT`. So each node compiles to
/// "the evaluator says true" and "the evaluator says false", both plain SQL booleans that are never
/// NULL; `not` swaps them, `and`/`or` combine them as Kleene logic does. Which leaves compile is in
/// `PostgresFilterTerms`; anything else is not compiled: inside `and` the other operands still
/// narrow the rows (a prefilter, not exact), anywhere else the enclosing node is not compiled.
enum PostgresFilterSQL {
    /// SQL conditions over `todo_rows r`, never NULL. `whenFalse` is nil when `whenTrue` is only a
    /// superset of the rows the evaluator finds true (a prefilter); otherwise both are exact.
    struct Truth {
        var whenTrue: String
        var whenFalse: String?
        var exact: Bool { whenFalse != nil }

        static let unknown = Truth(whenTrue: "false", whenFalse: "false")
    }

    /// `integerIDs`: the table's ids are numbers to the evaluator (`autoIncrement`); `id` is then not compiled.
    static func implied(_ filter: FilterExpression, _ parameters: inout [PostgresValue],
                        integerIDs: Bool = false) -> (sql: String, exact: Bool)? {
        var terms = PostgresFilterTerms(parameters: parameters, integerIDs: integerIDs)
        guard let truth = compile(filter, &terms) else { return nil }
        parameters = terms.parameters
        return (truth.whenTrue, truth.exact)
    }

    static func compile(_ filter: FilterExpression, _ terms: inout PostgresFilterTerms) -> Truth? {
        switch filter.node {
        case .and(let operands):
            var parts: [Truth] = []
            for operand in operands {
                if let part = compile(operand, &terms) { parts.append(part) }
            }
            guard !parts.isEmpty else { return nil }
            let falses = parts.count == operands.count ? parts.compactMap(\.whenFalse) : []
            return Truth(whenTrue: joined(parts.map(\.whenTrue), "AND"),
                         whenFalse: falses.count == operands.count ? joined(falses, "OR") : nil)
        case .or(let operands):
            var parts: [Truth] = []
            for operand in operands {
                guard let part = compile(operand, &terms) else { return nil }
                parts.append(part)
            }
            let falses = parts.compactMap(\.whenFalse)
            return Truth(whenTrue: joined(parts.map(\.whenTrue), "OR"),
                         whenFalse: falses.count == parts.count ? joined(falses, "AND") : nil)
        case .not(let operand):
            guard let part = compile(operand, &terms), let whenFalse = part.whenFalse else { return nil }
            return Truth(whenTrue: whenFalse, whenFalse: part.whenTrue)
        case .binary(let op, let lhs, let rhs) where op.isComparison:
            return terms.comparison(op, lhs, rhs)
        case .call(let function, let arguments):
            return terms.call(function, arguments)
        default:
            return nil
        }
    }

    private static func joined(_ parts: [String], _ connective: String) -> String {
        "(" + parts.joined(separator: " \(connective) ") + ")"
    }
}
