/// Where an incremental pull starts in a table's `(updatedAt, id)` index.
public struct PullLowerBound: Equatable, Sendable {
    public var updatedAt: WireInstant
    /// With an id, the bound is the pair `(updatedAt, id)`; without, `updatedAt` alone.
    public var id: String?
    /// True for `ge` (rows at the bound are in), false for "after the bound".
    public var inclusive: Bool

    public init(updatedAt: WireInstant, id: String?, inclusive: Bool) {
        self.updatedAt = updatedAt
        self.id = id
        self.inclusive = inclusive
    }

    /// Whether an index entry lies at or after the bound. Ids compare by Unicode scalars, like
    /// `id gt 'I'` does (§4.2.5).
    public func admits(updatedAt rowUpdatedAt: WireInstant, id rowID: String) -> Bool {
        if rowUpdatedAt != updatedAt { return rowUpdatedAt > updatedAt }
        guard let id else { return inclusive }
        let order = FilterComparison.compareScalars(rowID, id)
        return inclusive ? order >= 0 : order > 0
    }
}

/// A query recognised as an incremental pull (protocol §10.5, §8.12), so the server can seek in
/// its `(updatedAt, id)` index instead of scanning and sorting the table.
///
/// The recognition is an optimisation only: the server still evaluates the whole filter on every
/// row it reads from the index, so a shape that is not recognised is merely slower.
public struct PullShape: Equatable, Sendable {
    /// Start of the index range; nil means the start of the index (first pull, or a filter
    /// without a cursor condition).
    public var lowerBound: PullLowerBound?
    /// The rest of the filter, ANDed with the bound: the query's own filter `q`, or nil.
    public var residual: FilterExpression?

    public init(lowerBound: PullLowerBound?, residual: FilterExpression?) {
        self.lowerBound = lowerBound
        self.residual = residual
    }

    /// The shape of a query whose effective order (with the `id` tie-break) is
    /// `updatedAt asc, id asc`, in either spelling; nil for any other order. The filter may be:
    /// - `(updatedAt gt T) or ((updatedAt eq T) and (id gt 'I'))` (cursor mode, §10.5.2);
    /// - `updatedAt ge T` (fallback mode, §10.5.3), or `updatedAt gt T`;
    /// - one of those ANDed with the query's own filter, e.g. `(q) and (cursor)`;
    /// - anything else, or absent: no lower bound, and the whole filter is the residual.
    public static func recognise(filter: FilterExpression?, orderBy: OrderBy?) -> PullShape? {
        guard let orderBy, isUpdatedAtThenID(orderBy.withIDTieBreak) else { return nil }
        guard let filter else { return PullShape(lowerBound: nil, residual: nil) }
        if let bound = lowerBound(of: filter) { return PullShape(lowerBound: bound, residual: nil) }
        if case .and(let operands) = filter.node {
            // The client puts the cursor condition last; look there first.
            for index in operands.indices.reversed() {
                guard let bound = lowerBound(of: operands[index]) else { continue }
                var rest = operands
                rest.remove(at: index)
                let residual = rest.count == 1 ? rest[0] : FilterExpression(.and(rest), position: filter.position)
                return PullShape(lowerBound: bound, residual: residual)
            }
        }
        return PullShape(lowerBound: nil, residual: filter)
    }

    private static func isUpdatedAtThenID(_ orderBy: OrderBy) -> Bool {
        orderBy.keys.count == 2
            && orderBy.keys[0] == OrderByKey(FilterExpression(.member(.system(.updatedAt))))
            && orderBy.keys[1] == OrderByKey(FilterExpression(.member(.id)))
    }

    /// The bound a cursor condition sets, or nil when `expression` is not one.
    private static func lowerBound(of expression: FilterExpression) -> PullLowerBound? {
        switch expression.node {
        case .binary(.ge, let lhs, let rhs):
            guard isUpdatedAt(lhs), let t = instant(rhs) else { return nil }
            return PullLowerBound(updatedAt: t, id: nil, inclusive: true)
        case .binary(.gt, let lhs, let rhs):
            guard isUpdatedAt(lhs), let t = instant(rhs) else { return nil }
            return PullLowerBound(updatedAt: t, id: nil, inclusive: false)
        case .or(let operands) where operands.count == 2:
            // (updatedAt gt T) or ((updatedAt eq T) and (id gt 'I')), either operand first.
            for (first, second) in [(operands[0], operands[1]), (operands[1], operands[0])] {
                guard case .binary(.gt, let lhs, let rhs) = first.node, isUpdatedAt(lhs), let t = instant(rhs),
                      let id = sameInstantAndIDAfter(second, t)
                else { continue }
                return PullLowerBound(updatedAt: t, id: id, inclusive: false)
            }
            return nil
        default:
            return nil
        }
    }

    /// The `I` of `(updatedAt eq T) and (id gt 'I')` (either order) when its T is `t`.
    private static func sameInstantAndIDAfter(_ expression: FilterExpression, _ t: WireInstant) -> String? {
        guard case .and(let operands) = expression.node, operands.count == 2 else { return nil }
        for (first, second) in [(operands[0], operands[1]), (operands[1], operands[0])] {
            guard case .binary(.eq, let uLHS, let uRHS) = first.node, isUpdatedAt(uLHS), instant(uRHS) == t,
                  case .binary(.gt, let idLHS, let idRHS) = second.node,
                  idLHS.node == .member(.id), case .literal(.string(let id)) = idRHS.node
            else { continue }
            return id
        }
        return nil
    }

    private static func isUpdatedAt(_ expression: FilterExpression) -> Bool {
        expression.node == .member(.system(.updatedAt))
    }

    /// A date literal, or a string literal that reads as a date (§8.6.2 compares them alike).
    private static func instant(_ expression: FilterExpression) -> WireInstant? {
        guard case .literal(let value) = expression.node else { return nil }
        switch value {
        case .date, .string: return value.instant
        default: return nil
        }
    }
}
