import TodoSync

/// The sentences for what a pull (or `pull --verify`) tells besides its counts: a refused query, a
/// note on how it read the server, a warning about rows. Worded here, for the text output and for
/// `--json`'s `rejected`, `notes` and `warnings`; the sync library only says which it was.
enum PullNoticeText {
    static func refusal(_ refusal: QueryRefusal) -> String {
        switch refusal {
        case .noTable(let table): "the server has no table '\(table)'"
        case .rejected(let status, let said): "the server rejected the query (\(status))\(said.map { ": " + $0 } ?? "")"
        case .integerIDs(let table): SyncStopText.integerIDs(table)
        }
    }

    static func note(_ note: PullNote) -> String {
        switch note {
        case .filterChanged(let queryID):
            "the filter of query '\(queryID)' changed; pulling it from the beginning"
        case .cannotPageByID:
            "the server cannot page by (updatedAt, id); using updatedAt and $skip"
        case .rowsOutOfOrder:
            "the server returned rows out of (updatedAt, id) order; using updatedAt and $skip"
        case .deletesForGood(let table):
            "the server deletes rows of '\(table)' for good (hard delete): rows that other replicas delete there stay in this "
                + "replica, since pulls never show them; 'todo purge --table \(table)' then 'todo pull' drops them"
        case .deletesKept(let table):
            "the server now keeps the deleted rows of '\(table)' (soft delete): pulls show deletions again"
        }
    }

    static func warning(_ warning: PullWarning) -> String {
        switch warning {
        case .rowWithoutID(let row):
            "skipped a row without a valid id: \(row)"
        case .memberIgnored(let name):
            "ignored member '\(name)' (not a user field name)"
        case .idsDifferInCase(let table, let first, let second):
            "the server has rows '\(first)' and '\(second)' in \(table), ids that differ only in case; "
                + "the replica keeps one item, the last one pulled"
        case .cannotListTables(let unlisted, let remote):
            cannotList(unlisted, remote: remote?.displayURL ?? "the remote")
        }
    }

    private static func cannotList(_ unlisted: ServerTables.Unlisted, remote: String) -> String {
        let instead = "name each table you want: 'todo pull --table NAME'"
        return switch unlisted {
        case .notAList:
            "\(remote) answered the list of tables with something else than a list, so it cannot list its tables; \(instead)"
        case .status(let status):
            "\(remote) cannot list its tables (GET /tables answered \(status)): it is not a todo-server, or an older one; \(instead)"
        }
    }
}
