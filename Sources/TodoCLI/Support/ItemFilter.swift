import TableProtocol
import TodoModel

/// A local item as the OData evaluator sees it (sync.md §6.4): system properties read from the
/// `ms_` members, user fields as columns. The model never evaluates filters; this glue does.
struct ItemFilterRow: FilterRow {
    let item: Item

    func value(of member: ODataMember) -> FilterValue {
        switch member {
        case .id: return .string(item.id)
        case .system(.createdAt): return date(item.system.createdAt)
        case .system(.updatedAt): return date(item.system.updatedAt)
        case .system(.version): return item.system.version.map { .string($0) } ?? .null
        case .system(.deleted): return .bool(false)  // item files are never deleted copies
        case .column(let name): return item.fields[name].map(FilterValue.init) ?? .null
        }
    }

    private func date(_ text: String?) -> FilterValue {
        guard let text, let instant = WireInstant(wireText: text) else { return .null }
        return .date(instant)
    }
}

/// A stored query's filter, parsed once, as a predicate over items.
enum ItemFilter {
    /// Nil filter text matches every item. A stored filter that does not parse is an error naming it.
    static func predicate(_ filter: String?, query: String, table: String, tableFile: String)
        throws(CLIError) -> (Item) -> Bool
    {
        guard let filter else { return { _ in true } }
        let expression: FilterExpression
        do {
            expression = try ODataQueryOptions.parseFilter(filter)
        } catch {
            throw CLIError(.failure, "the filter of query '\(query)' of table \(table) does not parse: \(error.message)",
                           hint: "fix \"filter\" in \(tableFile), or pull the query again with a new --filter")
        }
        return { expression.matches(ItemFilterRow(item: $0)) }
    }
}
