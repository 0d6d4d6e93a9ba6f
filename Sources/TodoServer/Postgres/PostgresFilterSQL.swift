import PostgresClient
import TableProtocol

/// The part of a `$filter` compiled to SQL (issue 18 item 3): a condition every matching row meets,
/// so the database returns fewer rows, and whether it is exact (meets it only the matching rows),
/// so that a page's `LIMIT` can go to the database too.
///
/// Compiled: `and` and `or` of `column eq 'text'` and `column eq true|false` (either side), which
/// compare alike in both places: a JSON string equals only a string with the same Unicode scalars
/// (jsonb compares strings byte for byte for equality), a boolean only the same boolean, a missing
/// field or another type nothing. Everything else (other operators, functions, numbers, dates,
/// `not`) is left to `QueryPlan`, which evaluates the whole filter on every fetched row anyway.
enum PostgresFilterSQL {
    static func implied(_ filter: FilterExpression, _ parameters: inout [PostgresValue]) -> (sql: String, exact: Bool)? {
        switch filter.node {
        case .and(let operands):
            var parts: [String] = []
            var exact = true
            for operand in operands {
                if let part = implied(operand, &parameters) {
                    parts.append(part.sql)
                    exact = exact && part.exact
                } else {
                    exact = false
                }
            }
            return parts.isEmpty ? nil : ("(" + parts.joined(separator: " AND ") + ")", exact)
        case .or(let operands):
            var parts: [String] = []
            var exact = true
            for operand in operands {
                guard let part = implied(operand, &parameters) else { return nil }
                parts.append(part.sql)
                exact = exact && part.exact
            }
            return ("(" + parts.joined(separator: " OR ") + ")", exact)
        case .binary(.eq, let lhs, let rhs):
            return equality(lhs, rhs, &parameters) ?? equality(rhs, lhs, &parameters)
        default:
            return nil
        }
    }

    private static func equality(_ member: FilterExpression, _ literal: FilterExpression,
                                 _ parameters: inout [PostgresValue]) -> (sql: String, exact: Bool)? {
        guard case .member(.column(let name)) = member.node, case .literal(let value) = literal.node else { return nil }
        let typed: String
        switch value {
        case .string(let text):
            parameters.append(.text(text))
            typed = "$\(parameters.count)::text"
        case .bool(let flag):
            parameters.append(.bool(flag))
            typed = "$\(parameters.count)::boolean"
        default:
            return nil
        }
        parameters.append(.text(name))
        return ("r.fields -> $\(parameters.count)::text = to_jsonb(\(typed))", true)
    }
}
