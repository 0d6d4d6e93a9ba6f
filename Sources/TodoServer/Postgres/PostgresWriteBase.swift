import PostgresClient
import TodoModel

/// A write's view of its table inside its PostgreSQL transaction (see `TableWrite`).
///
/// The transaction holds the table's `todo_tables` row locked (`FOR UPDATE`) from its first
/// statement to its commit, so writes to one table are serialised across every node: what the
/// body reads is what it overwrites (If-Match exact across nodes), and stamps are taken in commit
/// order (see `PostgresTableStore`). `TableWrite` reads rows without `throws`; a failed lookup is
/// kept here and thrown before anything is written.
final class PostgresWriteBase: TableWriteBase, VersionSource {
    let connection: PostgresConnection
    let key: String
    let meta: PostgresTableSchema.Meta
    private(set) var lastVersion: UInt64
    private var looked: [StoredRowKey: StoredRow?] = [:]
    private(set) var failure: (any Error)?

    init(connection: PostgresConnection, key: String, meta: PostgresTableSchema.Meta) {
        self.connection = connection
        self.key = key
        self.meta = meta
        lastVersion = meta.lastVersion
    }

    var schema: TableSchema { meta.schema }
    var lastUpdatedAt: Int64 { meta.lastUpdatedAt }
    var lastID: UInt64 { meta.lastID }

    func row(key rowKey: StoredRowKey) -> StoredRow? {
        if let known = looked[rowKey] { return known }
        do {
            let rows = try connection.query(
                "SELECT \(PostgresTableSchema.rowColumns) FROM todo_rows r WHERE r.table_key = $1 AND r.id_key = $2",
                [.text(key), .text(rowKey.lowercased)])
            let row = try rows.first.flatMap { try PostgresTableSchema.row($0, at: 0) }
            looked[rowKey] = .some(row)
            return row
        } catch {
            if failure == nil { failure = error }
            return nil
        }
    }

    func next() -> UInt64 {
        lastVersion += 1
        return lastVersion
    }

    /// Writes the commit's effect and the table's new counters, in this transaction.
    func apply(_ commit: TableCommit) throws {
        var columns = meta.schema.columns
        for (name, type) in commit.columns { columns[name] = .some(type) }
        var lastUpdatedAt = max(meta.lastUpdatedAt, commit.stamp?.updatedAt ?? 0)
        var lastID = meta.lastID
        for row in commit.puts {
            lastUpdatedAt = max(lastUpdatedAt, row.updatedAt)
            if meta.schema.idType == .autoIncrement, let n = IntegerID.value(ofStored: row.id) { lastID = max(lastID, n) }
            try connection.execute("""
                INSERT INTO todo_rows (table_key, id_key, id, created_at, updated_at, version, deleted, fields)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                ON CONFLICT (table_key, id_key) DO UPDATE SET id = EXCLUDED.id, created_at = EXCLUDED.created_at,
                    updated_at = EXCLUDED.updated_at, version = EXCLUDED.version, deleted = EXCLUDED.deleted,
                    fields = EXCLUDED.fields
                """, [.text(key), .text(row.id.lowercased()), .text(row.id), .int(row.createdAt), .int(row.updatedAt),
                      .int(Int64(row.version)), .bool(row.deleted), .jsonb(PostgresTableSchema.fieldsJSON(row))])
        }
        for id in commit.removals {
            try connection.execute("DELETE FROM todo_rows WHERE table_key = $1 AND id_key = $2", [.text(key), .text(id.lowercased())])
        }
        try connection.execute("""
            UPDATE todo_tables SET columns = $2, last_updated_at = $3, last_version = $4, last_id = $5 WHERE key = $1
            """, [.text(key), .jsonb(PostgresTableSchema.columnsJSON(columns)), .int(lastUpdatedAt),
                  .int(Int64(max(lastVersion, commit.stamp?.version ?? 0))), .int(Int64(lastID))])
    }
}
