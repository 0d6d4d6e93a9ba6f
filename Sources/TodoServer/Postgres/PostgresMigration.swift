import PostgresClient
import TodoModel

/// `todo-server migrate` (issue 18 item 7): copies every table of an embedded store into the
/// PostgreSQL store, as it is: ids, versions, createdAt/updatedAt, deleted flags, the table's
/// settings and columns, and its counters (last version, updatedAt and integer id given out). So
/// the ETags and delta tokens replicas hold stay valid against the PostgreSQL nodes, and no
/// version is ever given out twice.
///
/// All or nothing: one transaction copies every table, checks each table's count read back
/// against the source, and commits only then. It holds each table's `todo_tables` row locked and
/// its write gate (`PostgresWriteGate`) closed, so a node writing meanwhile waits for it. Rows go in batches of `batchSize` (one INSERT each),
/// read from the source batch by batch: the process never holds a second copy of a table.
struct PostgresMigration {
    /// What was copied of one table, as read back from PostgreSQL.
    struct Copied: Equatable {
        var table: String
        var rows: Int
        var deleted: Int
    }

    /// A target that already holds rows of a table (nothing was copied), or a count that did not
    /// read back (the transaction was rolled back).
    struct Refusal: Error, CustomStringConvertible {
        var description: String
    }

    let source: TableStorage
    let target: PostgresTableStore
    var batchSize = 500

    /// Copies every table; returns what each holds in PostgreSQL, by table name.
    func run() throws -> [Copied] {
        do {
            return try target.pool.transaction(maxAttempts: 1) { connection in
                let copied = try source.tableNames().map { try copy($0, connection) }
                // Versions given out from now on start above every copied one.
                try connection.execute("SELECT setval('todo_versions', GREATEST((SELECT last_value FROM todo_versions), $1))",
                                       [.int(Int64(try source.tableNames().compactMap { table in
                                           try source.read(table) { $0.counters.lastVersion } }.max() ?? 0))])
                return copied
            }
        } catch let refusal as Refusal {
            throw refusal
        } catch let error as PostgresError {
            throw Refusal(description: "PostgreSQL failed, nothing was copied: \(error)")
        }
    }

    private func copy(_ table: String, _ connection: PostgresConnection) throws -> Copied {
        let key = table.lowercased()
        guard let (schema, counters, rows, deleted) = try source.read(table, { snapshot in
            (snapshot.schema, snapshot.counters, snapshot.rowCount(includeDeleted: true),
             snapshot.rowCount(includeDeleted: true) - snapshot.rowCount(includeDeleted: false))
        }) else { throw Refusal(description: "table '\(table)' disappeared from the data directory during the copy") }
        try connection.execute("""
            INSERT INTO todo_tables (key, name, soft_delete, id_type, columns, last_updated_at, last_version, last_id)
            VALUES ($1, $2, $3, $4, '{}', 0, 0, 0) ON CONFLICT (key) DO NOTHING
            """, [.text(key), .text(schema.name), .bool(schema.softDelete), .text(schema.idType.rawValue)])
        _ = try connection.query("SELECT key FROM todo_tables WHERE key = $1 FOR UPDATE", [.text(key)])
        try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int(PostgresWriteGate.key(key))])
        let held: Int64 = try connection.query("SELECT count(*) FROM todo_rows WHERE table_key = $1", [.text(key)])[0].decode(0)
        guard held == 0 else {
            throw Refusal(description: "PostgreSQL already holds \(held) row\(held == 1 ? "" : "s") of table '\(schema.name)' (database "
                + "'\(target.config.database)' at \(target.config.endpoint)), so nothing was copied: migrate into a database "
                + "without rows of the data directory's tables (a new one), or delete those rows first if they are not needed")
        }
        try connection.execute("""
            UPDATE todo_tables SET name = $2, soft_delete = $3, id_type = $4, columns = $5,
                last_updated_at = GREATEST(last_updated_at, $6), last_version = GREATEST(last_version, $7),
                last_id = GREATEST(last_id, $8) WHERE key = $1
            """, [.text(key), .text(schema.name), .bool(schema.softDelete), .text(schema.idType.rawValue),
                  .jsonb(PostgresTableSchema.columnsJSON(schema.columns)), .int(counters.lastUpdatedAt),
                  .int(Int64(counters.lastVersion)), .int(Int64(counters.lastID))])
        var position = BatchPosition()
        while true {
            let batch = try source.read(table) { position.next(batchSize, of: $0) } ?? []
            if batch.isEmpty { break }
            try insert(batch, key: key, connection)
            position.advance(past: batch)
        }
        let back = try connection.query(
            "SELECT count(*), count(*) FILTER (WHERE deleted) FROM todo_rows WHERE table_key = $1", [.text(key)])[0]
        let copied = Copied(table: schema.name, rows: Int(try back.decode(0, as: Int64.self)), deleted: Int(try back.decode(1, as: Int64.self)))
        guard copied.rows == rows && copied.deleted == deleted else {
            throw Refusal(description: "table '\(schema.name)': \(rows) rows (\(deleted) deleted) in the data directory, but "
                + "\(copied.rows) (\(copied.deleted) deleted) read back from PostgreSQL; nothing was copied")
        }
        return copied
    }

    /// One INSERT of many rows; its text holds only placeholders, the values are bound.
    private func insert(_ rows: [StoredRow], key: String, _ connection: PostgresConnection) throws {
        var placeholders: [String] = []
        var values: [PostgresValue] = []
        for row in rows {
            let first = values.count
            placeholders.append("(" + (1...8).map { "$\(first + $0)" }.joined(separator: ", ") + ")")
            values += [.text(key), .text(row.id.lowercased()), .text(row.id), .int(row.createdAt), .int(row.updatedAt),
                       .int(Int64(row.version)), .bool(row.deleted), .jsonb(PostgresTableSchema.fieldsJSON(row))]
        }
        try connection.execute("""
            INSERT INTO todo_rows (table_key, id_key, id, created_at, updated_at, version, deleted, fields)
            VALUES \(placeholders.joined(separator: ", "))
            """, values)
    }
}

/// Where the copy of a table has got to, in the source's (updatedAt, id) order: the last
/// updatedAt copied and how many rows of it. The source does not change meanwhile (migrate holds
/// the data directory's lock), so the order is the same at every batch.
private struct BatchPosition {
    var updatedAt: Int64?
    var copiedAtUpdatedAt = 0

    func next(_ limit: Int, of snapshot: TableSnapshot) -> [StoredRow] {
        var batch: [StoredRow] = []
        var skip = copiedAtUpdatedAt
        snapshot.scan(updatedAfter: updatedAt, inclusive: true) { row in
            if skip > 0 { skip -= 1; return true }
            batch.append(row)
            return batch.count < limit
        }
        return batch
    }

    mutating func advance(past batch: [StoredRow]) {
        guard let last = batch.last?.updatedAt else { return }
        let atLast = batch.reversed().prefix { $0.updatedAt == last }.count
        copiedAtUpdatedAt = last == updatedAt ? copiedAtUpdatedAt + atLast : atLast
        updatedAt = last
    }
}
