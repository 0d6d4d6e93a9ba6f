/// What a pull (or `pull --verify`) tells besides its counts: a query the server refused, notes
/// about how it read the server, warnings about rows. Values, not sentences: the command line
/// words them (`PullNoticeText` in TodoCLI).

/// Why the server refused one query or table; the other queries still run, exit 1 at the end
/// (sync.md §5.9.2).
public enum QueryRefusal: Sendable, Equatable {
    /// A 404: the server has no such table.
    case noTable(String)
    /// Another 4xx: the server rejected the query, saying this.
    case rejected(status: Int, serverMessage: String?)
    /// The table's ids are integers (sync.md §10.2): nothing of it is stored.
    case integerIDs(table: String)
}

/// Said once about a query, with the page it concerns.
public enum PullNote: Sendable, Equatable {
    /// The stored filter of the query changed: it starts from the beginning (§5.1.1).
    case filterChanged(queryID: String)
    /// The server cannot filter or order on id: the pull pages by updatedAt and `$skip` (protocol §10.5.5).
    case cannotPageByID
    /// The server returned rows out of (updatedAt, id) order: the same switch.
    case rowsOutOfOrder
    /// The server now deletes the table's rows for good (§5.7): other replicas' deletions stay here.
    case deletesForGood(table: String)
    /// The server keeps the table's deleted rows again: pulls show deletions.
    case deletesKept(table: String)
}

/// Something about the server's rows or tables that the user should know, but that does not stop the pull.
public enum PullWarning: Sendable, Equatable {
    /// A row without a valid id was skipped; `row` is its JSON, cut to 80 characters.
    case rowWithoutID(row: String)
    /// A member that is not a user field name was dropped (said once per name).
    case memberIgnored(name: String)
    /// Two server rows whose ids differ only in case; the replica keeps the one pulled last (§10.2).
    case idsDifferInCase(table: String, first: String, second: String)
    /// `--all-tables` could not ask the server for its tables; the tracked ones are still pulled.
    case cannotListTables(ServerTables.Unlisted, remote: RemoteEndpoint?)
}
