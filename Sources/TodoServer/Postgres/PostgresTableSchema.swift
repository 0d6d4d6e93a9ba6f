import PostgresClient
import TodoModel

// Layout of the PostgreSQL store (issue 18), created at start when missing:
//
// `todo_tables`: one row per table, keyed by its name in lower case: the configured spelling,
// softDelete, idType, the columns as jsonb (`{"text":"string","note":null}`), and the counters a
// write stamps from: `last_updated_at` (ms), `last_version`, `last_id` (autoIncrement).
//
// `todo_rows`: every row of every table, keyed by (table, id in lower case): the id as inserted,
// createdAt/updatedAt in Unix ms, version, deleted, and the user fields as one jsonb object.
// Why one shared table and jsonb: table and column names come from clients (dynamic tables and
// columns); one fixed layout needs no DDL at run time, never puts a name into SQL text, and
// allows table names of 128 characters (PostgreSQL identifiers stop at 63).
//
// Ids are `COLLATE "C"`: byte order of UTF-8 is the order of Unicode scalars, the protocol's
// order for ids (§4.2.5). The index `(table_key, updated_at, id)` makes an incremental pull page
// an index range scan; `(table_key, id)` serves the default `id` order.

/// The DDL of the store, and reading its rows back.
enum PostgresTableSchema {
    /// Run once per start under an advisory lock, so that nodes starting together do not race.
    static let statements = [
        """
        CREATE TABLE IF NOT EXISTS todo_tables (
            key text COLLATE "C" PRIMARY KEY,
            name text NOT NULL,
            soft_delete boolean NOT NULL,
            id_type text NOT NULL,
            columns jsonb NOT NULL,
            last_updated_at bigint NOT NULL,
            last_version bigint NOT NULL,
            last_id bigint NOT NULL)
        """,
        """
        CREATE TABLE IF NOT EXISTS todo_rows (
            table_key text COLLATE "C" NOT NULL REFERENCES todo_tables (key),
            id_key text COLLATE "C" NOT NULL,
            id text COLLATE "C" NOT NULL,
            created_at bigint NOT NULL,
            updated_at bigint NOT NULL,
            version bigint NOT NULL,
            deleted boolean NOT NULL,
            fields jsonb NOT NULL,
            PRIMARY KEY (table_key, id_key))
        """,
        "CREATE INDEX IF NOT EXISTS todo_rows_pull ON todo_rows (table_key, updated_at, id)",
        "CREATE INDEX IF NOT EXISTS todo_rows_id ON todo_rows (table_key, id)",
    ]

    /// Any constant: the advisory lock key of schema creation.
    static let creationLock: Int64 = 0x746f_646f_1801

    /// The meta columns every read selects first, in this order.
    static let metaColumns = "t.name, t.soft_delete, t.id_type, t.columns::text, t.last_updated_at, t.last_version, t.last_id"
    static let metaColumnCount = 7
    /// The row columns after them (all NULL for a LEFT JOIN that found no row).
    static let rowColumns = "r.id, r.created_at, r.updated_at, r.version, r.deleted, r.fields::text"

    struct Meta {
        var schema: TableSchema
        var lastUpdatedAt: Int64
        var lastVersion: UInt64
        var lastID: UInt64
    }

    /// The meta columns starting at `first` (see `metaColumns`).
    static func meta(_ row: PostgresRow, at first: Int = 0) throws -> Meta {
        let name: String = try row.decode(first)
        let idType = TableIDType(rawValue: try row.decode(first + 2, as: String.self)) ?? .string
        var columns: [String: ColumnType?] = [:]
        for (column, type) in try JSONValue.parse(try row.decode(first + 3, as: String.self)).objectValue ?? [:] {
            columns[column] = .some(type.stringValue.flatMap(ColumnType.init(rawValue:)))
        }
        let schema = TableSchema(name: name, softDelete: try row.decode(first + 1), idType: idType, columns: columns)
        return Meta(schema: schema, lastUpdatedAt: try row.decode(first + 4), lastVersion: UInt64(try row.decode(first + 5, as: Int64.self)),
                    lastID: UInt64(try row.decode(first + 6, as: Int64.self)))
    }

    /// The row whose columns start at `at` (see `rowColumns`); nil when they are NULL.
    static func row(_ row: PostgresRow, at first: Int) throws -> StoredRow? {
        guard let id = try row.decode(first, as: String?.self) else { return nil }
        let fields = try JSONValue.parse(try row.decode(first + 5, as: String.self)).objectValue ?? [:]
        return StoredRow(id: id, columns: fields, createdAt: try row.decode(first + 1), updatedAt: try row.decode(first + 2),
                         version: UInt64(try row.decode(first + 3, as: Int64.self)), deleted: try row.decode(first + 4))
    }

    /// The columns as stored in `todo_tables.columns`.
    static func columnsJSON(_ columns: [String: ColumnType?]) -> String {
        var object: [String: JSONValue] = [:]
        for (name, type) in columns { object[name] = type.map { .string($0.rawValue) } ?? .null }
        return JSONValue.object(object).compactText
    }

    static func fieldsJSON(_ row: StoredRow) -> String { JSONValue.object(row.columns).compactText }
}
