import PostgresClient
import TableProtocol
import TodoModel

/// The SQL that fetches what a query's page can be made of, and the page made from it.
///
/// SQL narrows the rows with what it can decide exactly: the deleted rule (§7.2), owner mode, one
/// id (§10.3), the part of `$filter` that compiles (`PostgresFilterSQL`), the incremental pull's
/// `(updatedAt, id)` lower bound in index order with its limit (§8.12: an index range scan, the
/// same cost at any table size), and the default `id` order with a limit when the filter compiled
/// whole. Values travel only as bound parameters. What is fetched is
/// then given to the same `QueryPlan` the embedded store runs, which applies the whole `$filter`,
/// `$orderby`, `$skip` and `$top`; so both stores answer alike by construction. A query of no such
/// shape (another order, `$inlinecount`) reads every visible row its filter's SQL lets through.
struct PostgresQuery {
    private(set) var sql = ""
    private(set) var parameters: [PostgresValue] = []
    let plan: QueryPlan
    let schema: TableSchema

    /// `updatedBefore`: the bound of `PostgresWriteGate.visibleBound`; rows at or above it are left
    /// for a later query.
    init(plan: QueryPlan, key: String, schema: TableSchema, updatedBefore: Int64? = nil) {
        self.plan = plan
        self.schema = schema
        var conditions = ["r.table_key = \(bind(.text(key)))"]
        if let updatedBefore { conditions.append("r.updated_at < \(bind(.int(updatedBefore)))") }
        if !plan.includeDeleted { conditions.append("NOT r.deleted") }
        if let owner = plan.ownership.owner {
            conditions.append("r.fields -> '\(RowOwnership.column)' = to_jsonb(\(bind(.text(owner)))::text)")
        }
        // The filter's SQL part: fewer rows fetched; exact, a page's limit may apply in SQL too.
        let integerIDs = schema.idType == .autoIncrement
        var filterExact = plan.options.filter == nil
        if let filter = plan.options.filter, let part = PostgresFilterSQL.implied(filter, &parameters, integerIDs: integerIDs) {
            conditions.append(part.sql)
            filterExact = part.exact
        }
        var tail = ""
        let limit = Int64(min(plan.skip + plan.top + 1, Int(Int32.max)))
        if plan.referenced.contains(where: { schema.columns[$0] == nil }) {
            tail = "LIMIT 0"  // a column the table lacks: an empty answer (§8.5)
        } else if let lookup = plan.idLookup {
            conditions.append("r.id_key = \(bind(.text(lookup.id.lowercased())))")
        } else if let shape = plan.pullShape, schema.idType == .string || shape.lowerBound?.id == nil {
            if let bound = shape.lowerBound {
                let op = bound.inclusive ? ">=" : ">"
                let ms = bound.updatedAt.milliseconds
                if bound.updatedAt != WireInstant(milliseconds: ms) {
                    // Between two milliseconds: every row at `ms` lies before the bound (`PullLowerBound.admits`).
                    conditions.append("r.updated_at > \(bind(.int(ms)))")
                } else if let id = bound.id {
                    conditions.append("(r.updated_at, r.id) \(op) (\(bind(.int(ms))), \(bind(.text(id))))")
                } else {
                    conditions.append("r.updated_at \(op) \(bind(.int(ms)))")
                }
            }
            // The residual (the filter beyond the cursor) decides whether the limit may go to SQL.
            var residualExact = shape.residual == nil
            if let residual = shape.residual, let part = PostgresFilterSQL.implied(residual, &parameters, integerIDs: integerIDs) {
                conditions.append(part.sql)
                residualExact = part.exact
            }
            tail = "ORDER BY r.updated_at, r.id" + (residualExact ? " LIMIT \(bind(.int(limit)))" : "")
        } else if plan.order == .byID, filterExact, !plan.countAll {
            tail = "ORDER BY r.id LIMIT \(bind(.int(limit)))"
        }
        sql = "SELECT \(PostgresTableSchema.rowColumns) FROM todo_rows r WHERE " + conditions.joined(separator: " AND ") + " " + tail
    }

    private mutating func bind(_ value: PostgresValue) -> String {
        parameters.append(value)
        return "$\(parameters.count)"
    }

    /// The page, by the embedded store's rules, from the fetched rows.
    func finish(_ rows: [StoredRow]) -> QuerySelection {
        let memory = TableMemory(schema: schema, lastVersion: 0, lastUpdatedAt: 0)
        for row in rows { memory.put(row) }
        return plan.finish(plan.take(from: TableSnapshot(memory)))
    }
}
