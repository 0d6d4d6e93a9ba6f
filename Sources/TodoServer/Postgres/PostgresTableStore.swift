import Synchronization
import PostgresClient
import TableProtocol
import TodoBasics
import TodoModel

/// The tables in PostgreSQL (issue 18): many stateless `todo-server` nodes on one database.
///
/// No row missed by an incremental pull, with the writes of one table running in parallel: see
/// `PostgresWriteGate`. If-Match stays exact across nodes because a write locks every row it
/// reads (`PostgresWriteBase`). A write that adds columns or hands out integer ids also locks its
/// table's `todo_tables` row: such writes run one at a time.
///
/// Queries: the page's rows are chosen in SQL where the answer can be bounded (the deleted rule,
/// owner mode, one id, the incremental pull's `(updatedAt, id)` range with its limit, the default
/// order's `id` range), then `QueryPlan` evaluates the full filter, order, skip and top in Swift
/// on what was fetched, exactly as on the embedded store (`PostgresQuery`).
final class PostgresTableStore: Sendable {
    let pool: PostgresPool
    let config: PostgresConfig
    /// `--max-tables` and `--max-row-size` apply here too; rows per table and memory do not (the
    /// database's own disk and quotas bound them).
    let quota: StorageQuota
    /// Tables seen, by key (see `TableStore.schema`): a query less per request.
    private let knownSchemas = Mutex<[String: TableSchema]>([:])
    /// Tests: runs just before a write commits (its stamps taken, its gate held).
    let beforeCommit: @Sendable () -> Void
    /// This node's PATCHes that run in one statement, gathered into batches (`PostgresPatch`).
    let patchBatches = PostgresPatchBatches()

    /// Connects and creates the store's tables when missing. Throws a `StorageError` saying why not.
    init(config: PostgresConfig, limits: StorageLimits = StorageLimits(), connections: Int = 8,
         beforeCommit: @escaping @Sendable () -> Void = {}) throws(StorageError) {
        self.config = config
        quota = StorageQuota(limits: limits)
        self.beforeCommit = beforeCommit
        pool = PostgresPool(config, size: connections)
        do {
            try pool.transaction { connection in
                try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int(PostgresTableSchema.creationLock)])
                for statement in PostgresTableSchema.statements + PostgresWriteGate.statements + PostgresPatch.statements { try connection.execute(statement) }
            }
        } catch {
            pool.close()
            throw Self.storageError(error)
        }
    }

    /// A database failure as the service reports it (a 503 that says what happened).
    static func storageError(_ error: any Error) -> StorageError {
        if let storage = error as? StorageError { return storage }
        return StorageError(.unavailable, "PostgreSQL (\(error))")
    }

    /// Keeps a table's schema as a write read it, when it has more columns than the one known
    /// (columns are only ever added): `PostgresPatch` runs a PATCH in one statement only when
    /// the schema known here has every column it sets.
    func learn(_ key: String, _ schema: TableSchema) {
        knownSchemas.withLock { known in
            if known[key].map({ $0.columns.count < schema.columns.count }) ?? true { known[key] = schema }
        }
    }

    private static func key(_ table: String) -> String? {
        TableStorage.isValidTableName(table) ? table.lowercased() : nil
    }

    private func meta(_ connection: PostgresConnection, _ key: String, forUpdate: Bool) throws -> PostgresTableSchema.Meta? {
        let rows = try connection.query("SELECT \(PostgresTableSchema.metaColumns) FROM todo_tables t WHERE t.key = $1"
                                        + (forUpdate ? " FOR UPDATE" : ""), [.text(key)])
        return try rows.first.map { try PostgresTableSchema.meta($0) }
    }

    /// Marks a creating write that changed nothing: its transaction is rolled back, so the table
    /// is not created, and its result is returned.
    private struct NothingCreated: Error {}
    /// A write that found it adds columns without holding the table's row: it runs again, holding it.
    private struct NeedsTableLock: Error {}

    /// `keepEmpty`: a creation stays even when `body` changes nothing (`createTable`; a creating
    /// insert that changed nothing creates nothing). A write that loses an insert race (unique
    /// violation) runs again and then sees the other write's row.
    private func run<T>(_ table: String, creating: (softDelete: Bool, idType: TableIDType)?, keepEmpty: Bool = false,
                        readingFirst firstID: String? = nil, _ body: (inout TableWrite) throws -> T) throws -> T {
        guard let key = Self.key(table) else {
            throw StorageError(.invalidTableName, "'\(table)' is not a table name: 1 to 128 characters of [A-Za-z_][A-Za-z0-9_]*")
        }
        var locksTable = creating != nil
        var attempt = 1
        while true {
            do {
                return try attemptWrite(table, key, creating: creating, keepEmpty: keepEmpty, locksTable: locksTable,
                                        readingFirst: firstID.map(StoredRowKey.init(id:)), body)
            } catch is NeedsTableLock {
                locksTable = true
            } catch let error as PostgresError where error.isUniqueViolation && attempt < 5 {
                attempt += 1
            } catch let error as PostgresError {
                throw Self.storageError(error)
            }
        }
    }

    private func attemptWrite<T>(_ table: String, _ key: String, creating: (softDelete: Bool, idType: TableIDType)?,
                                 keepEmpty: Bool, locksTable: Bool, readingFirst firstRow: StoredRowKey?,
                                 _ body: (inout TableWrite) throws -> T) throws -> T {
        var unchanged: T?
        do {
            return try pool.transaction { connection in
                var created = false
                if let creating {
                    // Creations one at a time, so that two cannot both take the last table of --max-tables.
                    try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int(PostgresTableSchema.creationLock)])
                    created = try !connection.query("""
                        INSERT INTO todo_tables (key, name, soft_delete, id_type, columns, last_updated_at, last_version, last_id)
                        VALUES ($1, $2, $3, $4, '{}', 0, 0, 0) ON CONFLICT (key) DO NOTHING RETURNING key
                        """, [.text(key), .text(table), .bool(creating.softDelete), .text(creating.idType.rawValue)]).isEmpty
                }
                if created {
                    let tables = try connection.query("SELECT count(*) FROM todo_tables")[0].decode(0, as: Int64.self)
                    try quota.admitTable(table, count: Int(tables) - 1)
                }
                let (gate, found, firstRead) = try PostgresWriteGate.enter(connection, key, lockingTable: locksTable,
                                                                           firstRow: firstRow?.lowercased)
                guard var meta = found else {
                    throw StorageError(.noSuchTable, "no table named '\(table)'")
                }
                learn(key, meta.schema)
                var locked = locksTable
                if !locked && meta.schema.idType == .autoIncrement, let again = try self.meta(connection, key, forUpdate: true) {
                    (meta, locked) = (again, true)
                }
                let base = PostgresWriteBase(connection: connection, key: key, meta: meta, gate: gate, locksTable: locked, quota: quota)
                if let firstRow { base.prefetched(firstRow, firstRead) }
                var write = TableWrite(memory: base, counter: base, clock: Clock { gate.now })
                let result = try body(&write)
                if let failure = base.failure { throw failure }
                let commit = write.makeCommit()
                if created && commit.isEmpty && !keepEmpty {
                    unchanged = result
                    throw NothingCreated()
                }
                if !locked && !commit.columns.isEmpty { throw NeedsTableLock() }
                if !commit.isEmpty { try base.apply(commit) }
                if let stamp = commit.stamp { PostgresWriteGate.settle(connection, after: stamp.updatedAt) }
                beforeCommit()
                return result
            }
        } catch is NothingCreated {
            return unchanged!
        }
    }
}

/// Every call commits (or reads committed rows) before it returns: durable already, so no call
/// adds to the ticket (see `TableStore`).
extension PostgresTableStore: TableStore {
    func schema(_ table: String, ticket: inout DurabilityTicket) throws(StorageError) -> TableSchema? {
        guard let key = Self.key(table) else { return nil }
        if let known = knownSchemas.withLock({ $0[key] }) { return known }
        do {
            let schema = try pool.withConnection { try meta($0, key, forUpdate: false) }?.schema
            if let schema { knownSchemas.withLock { $0[key] = schema } }
            return schema
        } catch {
            throw Self.storageError(error)
        }
    }

    func tableNames() throws(StorageError) -> [String] {
        do {
            let rows = try pool.withConnection { try $0.query("SELECT name FROM todo_tables ORDER BY name") }
            return try rows.map { try $0.decode(0, as: String.self) }.sorted()
        } catch {
            throw Self.storageError(error)
        }
    }

    func createTable(_ name: String, softDelete: Bool, idType: TableIDType, columns: [String: ColumnType]) throws {
        _ = try run(name, creating: (softDelete, idType), keepEmpty: true) { w in
            for (column, type) in columns where w.schema.columns[column] == nil { w.setColumnType(column, type) }
        }
    }

    func write<T>(_ table: String, ticket: inout DurabilityTicket, _ body: (inout TableWrite) throws -> T) throws -> T {
        try run(table, creating: nil, body)
    }

    func write<T>(_ table: String, readingFirst id: String, ticket: inout DurabilityTicket,
                  _ body: (inout TableWrite) throws -> T) throws -> T {
        try run(table, creating: nil, readingFirst: id, body)
    }

    func write<T>(_ table: String, creatingWithSoftDelete softDelete: Bool, ticket: inout DurabilityTicket,
                  _ body: (inout TableWrite) throws -> T) throws -> T {
        try run(table, creating: (softDelete, .string), body)
    }

    func readRow(_ table: String, id: String, ticket: inout DurabilityTicket) throws(StorageError)
        -> (row: StoredRow?, schema: TableSchema)?
    {
        guard let key = Self.key(table) else { return nil }
        do {
            let rows = try pool.query("""
                SELECT \(PostgresTableSchema.metaColumns), \(PostgresTableSchema.rowColumns) FROM todo_tables t
                LEFT JOIN todo_rows r ON r.table_key = t.key AND r.id_key = $2 WHERE t.key = $1
                """, [.text(key), .text(id.lowercased())])
            guard let first = rows.first else { return nil }
            return (try PostgresTableSchema.row(first, at: 7), try PostgresTableSchema.meta(first).schema)
        } catch {
            throw Self.storageError(error)
        }
    }

    func select(_ table: String, _ plan: QueryPlan, ticket: inout DurabilityTicket) throws(StorageError) -> QuerySelection? {
        guard let key = Self.key(table) else { return nil }
        do {
            let bound = try pool.withConnection { try PostgresWriteGate.visibleBound($0, key) }
            return try pool.transaction(isolation: .repeatableRead) { connection -> QuerySelection? in
                guard let meta = try meta(connection, key, forUpdate: false) else { return nil }
                let query = PostgresQuery(plan: plan, key: key, schema: meta.schema, updatedBefore: bound)
                let rows = try connection.query(query.sql, query.parameters).compactMap { try PostgresTableSchema.row($0, at: 0) }
                return query.finish(rows)
            }
        } catch {
            throw Self.storageError(error)
        }
    }

    func location(of table: String) -> String {
        "its row in todo_tables (PostgreSQL database '\(config.database)' at \(config.endpoint))"
    }

    func close() { pool.close() }
}
