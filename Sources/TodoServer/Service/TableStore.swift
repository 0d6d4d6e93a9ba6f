import TodoModel

/// Everything the service needs from where tables are kept (issue 18 item 1): the embedded
/// log-structured store (`TableStorage`, the default) or PostgreSQL (`PostgresTableStore`).
///
/// Why this shape: every answer renders its rows with the schema of the same moment (issue 22),
/// so reads hand back the row or page together with that schema, and writes run a body against a
/// `TableWrite` that sees the table as committed plus its own changes, applied whole or not at
/// all. Failures are `StorageError`s: `.unavailable` becomes a 503, quota kinds a 507/413.
///
/// Durability is explicit (issue 16 item 4): every read and write adds to the caller's
/// `DurabilityTicket` what must be durable before what it returned is acknowledged or shown. The
/// embedded store returns before its fsync, so that the server can wait once for a group of
/// pipelined answers; PostgreSQL commits before it returns and adds nothing. An answer made of
/// several calls (look the table up, then write) carries one ticket, hence `inout`. The methods
/// without a ticket (in the extension below) wait at once, for tools and tests.
protocol TableStore: AnyObject, Sendable {
    /// The table's schema, matched ignoring case; nil when there is no such table. Its name,
    /// softDelete and idType are exact; its columns may lag behind another node's write
    /// (PostgreSQL keeps a table's schema once seen: tables are never removed there and those three
    /// never change, which saves a query per request). Answers render with the schema that
    /// `readRow`, `select` and `write` read with their rows.
    func schema(_ table: String, ticket: inout DurabilityTicket) throws(StorageError) -> TableSchema?

    /// The configured spelling of every table, sorted (`GET /tables`). Names never change: no ticket.
    func tableNames() throws(StorageError) -> [String]

    /// Creates an empty table, durably; a no-op when one of this name in any case exists.
    func createTable(_ name: String, softDelete: Bool, idType: TableIDType, columns: [String: ColumnType]) throws

    /// Runs `body` as one atomic write with optimistic concurrency: no other write to the table
    /// interleaves between what `body` reads and what it writes. Durable once `ticket` holds.
    func write<T>(_ table: String, ticket: inout DurabilityTicket, _ body: (inout TableWrite) throws -> T) throws -> T

    /// `write` of a body that reads the row `id` first (an update, a delete, an insert of a given
    /// id): a database backend reads and locks it in the round trip that starts the write.
    func write<T>(_ table: String, readingFirst id: String, ticket: inout DurabilityTicket,
                  _ body: (inout TableWrite) throws -> T) throws -> T

    /// `write`, creating the table with this write when it does not exist (dynamic tables): the
    /// table appears with the write's changes, and not at all when `body` throws or changes nothing.
    func write<T>(_ table: String, creatingWithSoftDelete softDelete: Bool, ticket: inout DurabilityTicket,
                  _ body: (inout TableWrite) throws -> T) throws -> T

    /// A PATCH run by the store in one step, or nil: run it as a `write` (see `RowPatch`).
    func patch(_ table: String, _ patch: RowPatch, ticket: inout DurabilityTicket)
        throws -> (outcome: TableService.WriteOutcome, schema: TableSchema)?

    /// One row by id ignoring case (deleted rows included) with the schema of the same moment;
    /// nil when there is no such table.
    func readRow(_ table: String, id: String, ticket: inout DurabilityTicket) throws(StorageError)
        -> (row: StoredRow?, schema: TableSchema)?

    /// The page `plan` asks for, from one consistent view of the table; nil when there is no such table.
    func select(_ table: String, _ plan: QueryPlan, ticket: inout DurabilityTicket) throws(StorageError) -> QuerySelection?

    /// Where the table's rows and settings are kept, for messages ("its log (/data/x.log)").
    func location(of table: String) -> String

    /// Finishes every write and lets go of the store (files, locks, connections).
    func close()
}

extension TableStorage: TableStore {
    func readRow(_ table: String, id: String, ticket: inout DurabilityTicket) -> (row: StoredRow?, schema: TableSchema)? {
        read(table, ticket: &ticket) { snapshot in (row: snapshot.row(id: id), schema: snapshot.schema) }
    }

    func select(_ table: String, _ plan: QueryPlan, ticket: inout DurabilityTicket) -> QuerySelection? {
        read(table, ticket: &ticket) { plan.take(from: $0) }.map(plan.finish)
    }

    func location(of table: String) -> String {
        "its log (\(directory)/\(table.lowercased()).log)"
    }
}

extension TableStore {
    func write<T>(_ table: String, readingFirst id: String, ticket: inout DurabilityTicket,
                  _ body: (inout TableWrite) throws -> T) throws -> T {
        try write(table, ticket: &ticket, body)
    }
}

/// The same calls, durable when they return: for start-up, tools and tests, which answer no one
/// else meanwhile. (`TableStorage` has its own, alike, for callers that hold the concrete type.)
extension TableStore {
    func schema(_ table: String) throws(StorageError) -> TableSchema? {
        var ticket = DurabilityTicket.durable
        let schema = try schema(table, ticket: &ticket)
        try ticket.wait()
        return schema
    }

    func write<T>(_ table: String, _ body: (inout TableWrite) throws -> T) throws -> T {
        var ticket = DurabilityTicket.durable
        let result = try write(table, ticket: &ticket, body)
        try ticket.wait()
        return result
    }

    func write<T>(_ table: String, readingFirst id: String, _ body: (inout TableWrite) throws -> T) throws -> T {
        var ticket = DurabilityTicket.durable
        let result = try write(table, readingFirst: id, ticket: &ticket, body)
        try ticket.wait()
        return result
    }

    func write<T>(_ table: String, creatingWithSoftDelete softDelete: Bool, _ body: (inout TableWrite) throws -> T) throws -> T {
        var ticket = DurabilityTicket.durable
        let result = try write(table, creatingWithSoftDelete: softDelete, ticket: &ticket, body)
        try ticket.wait()
        return result
    }

    func readRow(_ table: String, id: String) throws(StorageError) -> (row: StoredRow?, schema: TableSchema)? {
        var ticket = DurabilityTicket.durable
        let found = try readRow(table, id: id, ticket: &ticket)
        try ticket.wait()
        return found
    }

    func select(_ table: String, _ plan: QueryPlan) throws(StorageError) -> QuerySelection? {
        var ticket = DurabilityTicket.durable
        let selection = try select(table, plan, ticket: &ticket)
        try ticket.wait()
        return selection
    }
}
