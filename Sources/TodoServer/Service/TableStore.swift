import TodoModel

/// Everything the service needs from where tables are kept (issue 18 item 1): the embedded
/// log-structured store (`TableStorage`, the default) or PostgreSQL (`PostgresTableStore`).
///
/// Why this shape: every answer renders its rows with the schema of the same moment (issue 22),
/// so reads hand back the row or page together with that schema, and writes run a body against a
/// `TableWrite` that sees the table as committed plus its own changes, applied whole or not at
/// all. Failures are `StorageError`s: `.unavailable` becomes a 503, quota kinds a 507/413.
protocol TableStore: AnyObject, Sendable {
    /// The table's schema, matched ignoring case; nil when there is no such table. Its name,
    /// softDelete and idType are exact; its columns may lag behind another node's write
    /// (PostgreSQL keeps a table's schema once seen: tables are never removed there and those three
    /// never change, which saves a query per request). Answers render with the schema that
    /// `readRow`, `select` and `write` read with their rows.
    func schema(_ table: String) throws(StorageError) -> TableSchema?

    /// The configured spelling of every table, sorted (`GET /tables`).
    func tableNames() throws(StorageError) -> [String]

    /// Creates an empty table; a no-op when one of this name in any case exists.
    func createTable(_ name: String, softDelete: Bool, idType: TableIDType, columns: [String: ColumnType]) throws

    /// Runs `body` as one atomic, durable write with optimistic concurrency: no other write to the
    /// table interleaves between what `body` reads and what it writes.
    func write<T>(_ table: String, _ body: (inout TableWrite) throws -> T) throws -> T

    /// `write` of a body that reads the row `id` first (an update, a delete, an insert of a given
    /// id): a database backend reads and locks it in the round trip that starts the write.
    func write<T>(_ table: String, readingFirst id: String, _ body: (inout TableWrite) throws -> T) throws -> T

    /// `write`, creating the table with this write when it does not exist (dynamic tables): the
    /// table appears with the write's changes, and not at all when `body` throws or changes nothing.
    func write<T>(_ table: String, creatingWithSoftDelete softDelete: Bool, _ body: (inout TableWrite) throws -> T) throws -> T

    /// One row by id ignoring case (deleted rows included) with the schema of the same moment;
    /// nil when there is no such table.
    func readRow(_ table: String, id: String) throws(StorageError) -> (row: StoredRow?, schema: TableSchema)?

    /// The page `plan` asks for, from one consistent view of the table; nil when there is no such table.
    func select(_ table: String, _ plan: QueryPlan) throws(StorageError) -> QuerySelection?

    /// Where the table's rows and settings are kept, for messages ("its log (/data/x.log)").
    func location(of table: String) -> String

    /// Finishes every write and lets go of the store (files, locks, connections).
    func close()
}

extension TableStorage: TableStore {
    func readRow(_ table: String, id: String) throws(StorageError) -> (row: StoredRow?, schema: TableSchema)? {
        try read(table) { snapshot in (row: snapshot.row(id: id), schema: snapshot.schema) }
    }

    func select(_ table: String, _ plan: QueryPlan) throws(StorageError) -> QuerySelection? {
        try read(table) { plan.take(from: $0) }.map(plan.finish)
    }

    func location(of table: String) -> String {
        "its log (\(directory)/\(table.lowercased()).log)"
    }
}

extension TableStore {
    func write<T>(_ table: String, readingFirst id: String, _ body: (inout TableWrite) throws -> T) throws -> T {
        try write(table, body)
    }
}
