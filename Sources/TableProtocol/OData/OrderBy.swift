/// One `$orderby` key: an expression, ascending unless `desc`.
public struct OrderByKey: Equatable, Sendable {
    public var expression: FilterExpression
    public var descending: Bool

    public init(_ expression: FilterExpression, descending: Bool = false) {
        self.expression = expression
        self.descending = descending
    }

    /// True when the key is the bare member `id` (in either direction).
    var isID: Bool {
        expression.node == .member(.id)
    }
}

/// A parsed `$orderby` (protocol §8.8): `key {, key}`, key = expr [asc | desc].
///
/// The comparator orders by type rank (null < boolean < number < string < date), then within the
/// type as §8.6.2 does; `desc` reverses a key completely, so nulls come last.
public struct OrderBy: Equatable, Sendable {
    public var keys: [OrderByKey]

    public init(keys: [OrderByKey]) {
        self.keys = keys
    }

    /// `id asc`: the order without `$orderby`.
    public static let byID = OrderBy(keys: [OrderByKey(FilterExpression(.member(.id)))])

    /// Parses an `$orderby` value. `asc`/`desc` are lower case only, like the filter keywords.
    public static func parse(_ text: String) throws(ODataQueryError) -> OrderBy {
        var parser = try FilterParser(text: text, option: "$orderby")
        var keys: [OrderByKey] = []
        while true {
            let expression = try parser.parseExpression().expression
            var descending = false
            if let word = parser.currentIdentifier, word == "asc" || word == "desc" {
                descending = word == "desc"
                try parser.advance()
            }
            keys.append(OrderByKey(expression, descending: descending))
            if parser.atEnd { return OrderBy(keys: keys) }
            guard parser.atComma else { throw parser.unexpectedHere("after an $orderby key; expected 'asc', 'desc' or ','") }
            try parser.advance()
        }
    }

    /// The order actually used: these keys plus `id asc` unless `id` already is a key, so that the
    /// order is total and the same on every request (§8.8).
    public var withIDTieBreak: OrderBy {
        if keys.contains(where: \.isID) { return self }
        return OrderBy(keys: keys + OrderBy.byID.keys)
    }

    /// The user columns the keys name (§8.5).
    public var referencedColumns: Set<String> {
        var columns: Set<String> = []
        for key in keys { key.expression.collectColumns(into: &columns) }
        return columns
    }

    /// The key values of a row, computed once per row so that sorting does not re-evaluate them
    /// for every comparison.
    public func keyValues<Row: FilterRow>(of row: Row) -> [FilterValue] {
        keys.map { $0.expression.evaluate(row) }
    }

    /// Compares key values from `keyValues(of:)`: -1, 0 or 1.
    public func compare(_ lhs: [FilterValue], _ rhs: [FilterValue]) -> Int {
        for (index, key) in keys.enumerated() where index < lhs.count && index < rhs.count {
            let order = FilterComparison.orderingCompare(lhs[index], rhs[index])
            if order != 0 { return key.descending ? -order : order }
        }
        return 0
    }

    /// Whether `lhs` comes before `rhs`, evaluating the keys on the spot. Use `keyValues(of:)` and
    /// `compare(_:_:)` when sorting many rows.
    public func areInIncreasingOrder<Row: FilterRow>(_ lhs: Row, _ rhs: Row) -> Bool {
        for key in keys {
            let order = FilterComparison.orderingCompare(key.expression.evaluate(lhs), key.expression.evaluate(rhs))
            if order != 0 { return key.descending ? order > 0 : order < 0 }
        }
        return false
    }
}
