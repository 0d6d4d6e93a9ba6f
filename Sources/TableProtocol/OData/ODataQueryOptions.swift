/// `$inlinecount` (protocol §8.11).
public enum InlineCount: String, Equatable, Sendable {
    case allPages = "allpages"
    case none
}

/// The query options of `GET /tables/{table}` (protocol §8.1), parsed from their raw values.
///
/// The server finds the parameters (names ignoring case, duplicates, percent-decoding) and hands
/// each raw value to the matching function here; `init` does all of them at once.
public struct ODataQueryOptions: Equatable, Sendable {
    public static let maximumTop = 1000

    public var filter: FilterExpression?
    public var orderBy: OrderBy?
    public var select: SelectList?
    public var top: Int?
    public var skip: Int?
    public var inlineCount: InlineCount?

    /// Parses the options that are present (nil = absent). Checks them in the order of the
    /// arguments; the first bad one is thrown.
    public init(
        filter: String? = nil, orderBy: String? = nil, select: String? = nil,
        top: String? = nil, skip: String? = nil, inlineCount: String? = nil
    ) throws(ODataQueryError) {
        self.filter = try filter.map { (text: String) throws(ODataQueryError) in try Self.parseFilter(text) }
        self.orderBy = try orderBy.map { (text: String) throws(ODataQueryError) in try OrderBy.parse(text) }
        self.select = try select.map { (text: String) throws(ODataQueryError) in try SelectList.parse(text) }
        self.top = try top.map { (text: String) throws(ODataQueryError) in try Self.parseTop(text) }
        self.skip = try skip.map { (text: String) throws(ODataQueryError) in try Self.parseSkip(text) }
        self.inlineCount = try inlineCount.map { (text: String) throws(ODataQueryError) in try Self.parseInlineCount(text) }
    }

    /// Every user column that `$filter`, `$orderby` or `$select` names (§8.5). When one of them is
    /// not a column of the table, the answer is an empty result, not an error.
    public var referencedColumns: Set<String> {
        var columns = filter?.referencedColumns ?? []
        columns.formUnion(orderBy?.referencedColumns ?? [])
        columns.formUnion(select?.referencedColumns ?? [])
        return columns
    }

    // MARK: - One option each

    /// A `$filter` value (§8.2–§8.7).
    public static func parseFilter(_ text: String) throws(ODataQueryError) -> FilterExpression {
        try FilterParser.parseFilter(text)
    }

    /// `$top`: digits only, 0 to 1000.
    public static func parseTop(_ text: String) throws(ODataQueryError) -> Int {
        let value = try digits(text, option: "$top")
        guard value <= maximumTop else {
            throw ODataQueryError(option: "$top", position: nil,
                                  reason: "'\(shortened(text))' is more than \(maximumTop)")
        }
        return value
    }

    /// `$skip`: digits only. Values beyond `Int.max` are capped: they skip every row anyway.
    public static func parseSkip(_ text: String) throws(ODataQueryError) -> Int {
        try digits(text, option: "$skip")
    }

    /// `$inlinecount`: `allpages` or `none`, exactly.
    public static func parseInlineCount(_ text: String) throws(ODataQueryError) -> InlineCount {
        guard let value = InlineCount(rawValue: text) else {
            throw ODataQueryError(option: "$inlinecount", position: nil,
                                  reason: "'\(shortened(text))' is not 'allpages' or 'none'")
        }
        return value
    }

    /// A non-negative decimal integer without sign or spaces, capped at `Int.max`.
    private static func digits(_ text: String, option: String) throws(ODataQueryError) -> Int {
        guard !text.isEmpty else {
            throw ODataQueryError(option: option, position: nil, reason: "the value is empty; expected a whole number")
        }
        var value = 0
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else {
                let reason = text.hasPrefix("-")
                    ? "'\(shortened(text))' is negative; expected a whole number of 0 or more"
                    : "'\(shortened(text))' is not a whole number (digits only)"
                throw ODataQueryError(option: option, position: nil, reason: reason)
            }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            value = overflow1 || overflow2 ? Int.max : sum
        }
        return value
    }

    private static func shortened(_ text: String) -> String {
        text.unicodeScalars.count <= 40 ? text : String(text.unicodeScalars.prefix(40)) + "…"
    }
}
