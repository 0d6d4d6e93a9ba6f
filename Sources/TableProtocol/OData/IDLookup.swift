/// A `$filter` that names one item by id: `id eq 'x'` or `tolower(id) eq 'x'` (either side), alone
/// or ANDed with other conditions. The client's one-row query for the server copy (protocol §10.3)
/// has this shape, so the server can look the row up instead of scanning the table.
///
/// An optimisation only: the server still evaluates the whole filter on the row it finds, so the
/// answer is the same as a scan's (case-sensitive `eq` included). Every row the filter matches
/// has an id whose lower case is `key`, and a table holds at most one such row (§4.2.4).
public struct IDLookup: Equatable, Sendable {
    /// The id as written in the filter; the row to look at is the one with this id ignoring case.
    public var id: String

    public static func recognise(_ filter: FilterExpression?) -> IDLookup? {
        guard let filter else { return nil }
        switch filter.node {
        case .binary(.eq, let lhs, let rhs):
            return literalID(lhs, rhs) ?? literalID(rhs, lhs)
        case .and(let operands):
            return operands.lazy.compactMap { recognise($0) }.first
        default:
            return nil
        }
    }

    /// `member` is `id` or `tolower(id)`, and `literal` a string.
    private static func literalID(_ member: FilterExpression, _ literal: FilterExpression) -> IDLookup? {
        guard case .literal(.string(let id)) = literal.node else { return nil }
        switch member.node {
        case .member(.id): return IDLookup(id: id)
        case .call(.tolower, let arguments) where arguments.count == 1 && arguments[0].node == .member(.id): return IDLookup(id: id)
        default: return nil
        }
    }
}
