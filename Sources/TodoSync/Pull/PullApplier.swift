import TodoModel
import TodoStore

/// Turns a page's decisions into the page's one transaction (sync.md §5.4) and the report's
/// counts (§5.9.1). It decides nothing: every change it stages is named by the plan, so what a
/// pull does and how it is written can change apart.
enum PullApplier {
    /// Stages every row's changes, in the order received, into `tx`, and counts them in `result`.
    static func stage(_ page: PagePlan, into tx: inout StoreTransaction, result: inout PullReport.QueryResult) {
        for row in page.rows {
            for op in row.removals { tx.removeOperation(op) }
            for op in row.writes { tx.putOperation(op) }
            switch row.item {
            case .write(let item): tx.putItem(item, table: row.table)
            case .remove(let id): tx.removeItem(table: row.table, id: id)
            case nil: break
            }
            switch row.conflict {
            case .write(let conflict): tx.putConflict(conflict)
            case .remove(let id): tx.removeConflict(table: row.table, id: id)
            case nil: break
            }
            for receipt in row.receipts { tx.addReceipt(receipt) }
            count(row.decision, in: &result)
        }
    }

    /// §5.9.1: created, updated, removed, auto-merged, absorbed, new conflicts, rows skipped for
    /// sealed items. A conflict that closes counts as the merge or absorb it amounts to; both
    /// deleted, refreshes and skips are not counted.
    static func count(_ decision: RowDecision, in result: inout PullReport.QueryResult) {
        switch decision {
        case .apply(let landing), .refreshConflict(.closes(let landing)):
            switch landing {
            case .created: result.created += 1
            case .updated: result.updated += 1
            case .removed: result.removed += 1
            case .absorbed: result.absorbed += 1
            case .merged: result.merged += 1
            case .bothDeleted: break
            }
        case .recordConflict: result.conflicts += 1
        case .skip(.sealedOrManyOperations): result.skippedSealed += 1
        case .refreshConflict, .skip: break
        }
    }
}
