import PostgresClient
import TodoModel

/// A write's view of its table inside its PostgreSQL transaction (see `TableWrite`).
///
/// The transaction holds its table's write gate (shared: writes to one table run in parallel and
/// their commits share the WAL flushes) and every row it reads locked (`FOR UPDATE`), so what the
/// body reads is what it overwrites (If-Match exact across nodes); a row it found absent is
/// inserted without `ON CONFLICT`, so a concurrent insert of the same id fails the transaction
/// (unique violation) and it runs again, then seeing the row. `locksTable`: the table's
/// `todo_tables` row is locked too (a write that adds columns or hands out integer ids), and its
/// counters are written back. `TableWrite` reads rows without `throws`; a failed lookup is kept
/// here and thrown before anything is written.
final class PostgresWriteBase: TableWriteBase, VersionSource {
    let connection: PostgresConnection
    let key: String
    let meta: PostgresTableSchema.Meta
    let locksTable: Bool
    let quota: StorageQuota
    /// The version the gate handed out with the time; later stamps of the write take more.
    private var reservedVersion: UInt64?
    private var looked: [StoredRowKey: StoredRow?] = [:]
    private(set) var failure: (any Error)?

    init(connection: PostgresConnection, key: String, meta: PostgresTableSchema.Meta, gate: PostgresWriteGate.Entry,
         locksTable: Bool, quota: StorageQuota) {
        self.quota = quota
        self.connection = connection
        self.key = key
        self.meta = meta
        self.locksTable = locksTable
        reservedVersion = gate.version
    }

    var schema: TableSchema { meta.schema }
    /// A floor for stamps besides the database's clock (see `PostgresWriteGate`): the table's last
    /// updatedAt as migrated or written by a write that locked the table, so rows copied from a
    /// server whose clock ran ahead are never passed by new ones.
    var lastUpdatedAt: Int64 { meta.lastUpdatedAt }
    var lastID: UInt64 { meta.lastID }

    /// Reads and locks one row of the table (`$1` the table's key, `$2` the row's id key).
    static let rowSQL = "SELECT \(PostgresTableSchema.rowColumns) FROM todo_rows r WHERE r.table_key = $1 AND r.id_key = $2 FOR UPDATE"

    /// A row read and locked with the gate's entry (`PostgresWriteGate.enter`); nil: absent.
    func prefetched(_ rowKey: StoredRowKey, _ row: StoredRow?) {
        looked[rowKey] = .some(row)
    }

    func row(key rowKey: StoredRowKey) -> StoredRow? {
        if let known = looked[rowKey] { return known }
        do {
            let rows = try connection.query(Self.rowSQL, [.text(key), .text(rowKey.lowercased)])
            let row = try rows.first.flatMap { try PostgresTableSchema.row($0, at: 0) }
            looked[rowKey] = .some(row)
            return row
        } catch {
            if failure == nil { failure = error }
            return nil
        }
    }

    /// Versions come from one sequence for all tables and nodes: never reused, gaps allowed.
    func next() -> UInt64 {
        if let reserved = reservedVersion {
            reservedVersion = nil
            return reserved
        }
        do {
            return UInt64(try connection.query("SELECT nextval('todo_versions')")[0].decode(0, as: Int64.self))
        } catch {
            if failure == nil { failure = error }
            return 0
        }
    }

    /// Writes the commit's effect (and, when it locks the table, the table's columns and counters)
    /// in this transaction, sent with its COMMIT (`runBeforeCommit`): nothing reads their results,
    /// and an error of one (a lost insert race: unique violation) fails the COMMIT instead. A big
    /// commit (a migration's batch) runs them one by one: a round trip of thousands of statements
    /// could fill both sockets' buffers, each side waiting for the other to read.
    func apply(_ commit: TableCommit) throws {
        let withCommit = commit.puts.count + commit.removals.count <= Self.statementsWithCommit
        func write(_ sql: String, _ values: [PostgresValue]) throws {
            if withCommit { connection.runBeforeCommit(sql, values) } else { try connection.execute(sql, values) }
        }
        for row in commit.puts {
            try Self.refuseNul(row)
            try quota.admitRowSize(row, old: looked[row.key] ?? self.row(key: row.key))
        }
        if let failure { throw failure }
        for row in commit.puts {
            let existed = (looked[row.key] ?? self.row(key: row.key)) != nil
            if let failure { throw failure }
            let values: [PostgresValue] = [.text(key), .text(row.id.lowercased()), .text(row.id), .int(row.createdAt), .int(row.updatedAt),
                                           .int(Int64(row.version)), .bool(row.deleted), .jsonb(PostgresTableSchema.fieldsJSON(row))]
            if existed {
                try write("""
                    UPDATE todo_rows SET id = $3, created_at = $4, updated_at = $5, version = $6, deleted = $7, fields = $8
                    WHERE table_key = $1 AND id_key = $2
                    """, values)
            } else {
                try write("""
                    INSERT INTO todo_rows (table_key, id_key, id, created_at, updated_at, version, deleted, fields)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                    """, values)
            }
        }
        for id in commit.removals {
            try write("DELETE FROM todo_rows WHERE table_key = $1 AND id_key = $2", [.text(key), .text(id.lowercased())])
        }
        guard locksTable else { return }
        var columns = meta.schema.columns
        for (name, type) in commit.columns { columns[name] = .some(type) }
        var lastUpdatedAt = max(meta.lastUpdatedAt, commit.stamp?.updatedAt ?? 0)
        var lastID = meta.lastID
        for row in commit.puts {
            lastUpdatedAt = max(lastUpdatedAt, row.updatedAt)
            if meta.schema.idType == .autoIncrement, let n = IntegerID.value(ofStored: row.id) { lastID = max(lastID, n) }
        }
        try write("""
            UPDATE todo_tables SET columns = $2, last_updated_at = $3, last_version = GREATEST(last_version, $4), last_id = $5 WHERE key = $1
            """, [.text(key), .jsonb(PostgresTableSchema.columnsJSON(columns)), .int(lastUpdatedAt),
                  .int(Int64(commit.stamp?.version ?? 0)), .int(Int64(lastID))])
    }

    /// At most this many rows' statements travel with the COMMIT.
    static let statementsWithCommit = 64

    /// `jsonb` and `text` cannot hold U+0000 (PostgreSQL refuses it): bad input, said before
    /// anything is written, rather than a database error that reads like an outage.
    static func refuseNul(_ row: StoredRow) throws {
        func holdsNul(_ value: JSONValue) -> Bool {
            switch value {
            case .string(let text): return text.utf8.contains(0)
            case .array(let items): return items.contains(where: holdsNul)
            case .object(let members): return members.contains { $0.key.utf8.contains(0) || holdsNul($0.value) }
            default: return false
            }
        }
        let column = row.id.utf8.contains(0) ? "id" : row.columns.keys.sorted().first { $0.utf8.contains(0) || holdsNul(row.columns[$0]!) }
        guard let column else { return }
        throw StorageError(.invalidValue, "the PostgreSQL store cannot hold the character U+0000 in a string (column '\(column)'): "
                           + "remove it, or use the embedded store")
    }
}
