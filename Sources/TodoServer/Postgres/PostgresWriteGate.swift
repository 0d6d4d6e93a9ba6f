import PostgresClient
import TodoModel

/// Why no incremental pull misses a row, while writes to one table run in parallel (issue 18 item 4).
///
/// A pull's cursor `(updatedAt, id)` skips for ever a row that commits after the pull passed its
/// updatedAt. So every table has a gate, a PostgreSQL advisory lock on a key derived from its
/// name, visible to every node at once:
/// - a write takes it shared (`enter`) for its whole transaction, and only then reads the
///   database's clock for its stamps. Before it commits it waits until that clock has reached its
///   last stamp (`todo_write_reach`; only a write of many stamps, or on a table stamped ahead of
///   the clock, ever waits: a stamp is the clock's millisecond when the gate was held).
/// - a query takes it exclusive for an instant (`todo_query_gate`): that waits for the writes in
///   flight to commit (new ones queue behind it), and reads the clock `c` before letting them go.
///   It then answers from the rows with `updatedAt < c`.
/// Every write that commits after the query's snapshot took its stamp after `c`, so it lies above
/// every row of the answer; every row below `c` had committed before the gate opened, so the
/// answer has it.
///
/// Read-your-writes: a write answered before the query began has committed, so the gate also
/// reads it as the table's newest stamp `n`. Since a committed stamp is never above the clock of
/// its commit, `n < c` unless the write committed in the query's own millisecond (or the table was
/// stamped ahead). Then the query lets the gate go, waits without it until the clock has passed
/// `n`, and takes the gate again (`todo_query_gate_after`): its bound, the clock read there, is
/// above `n`, and the same argument as above holds for it. So the wait of the last millisecond is
/// a query's, not every write's, and no write waits for a sleeping query.
///
/// One clock for all nodes: the database server's (`clock_timestamp()`), never below the table's
/// last updatedAt as migrated (`PostgresWriteBase.lastUpdatedAt`). It must not step back (NTP
/// slews small offsets; a step back delays nothing but can let a cursor pass rows).
enum PostgresWriteGate {
    /// What the gate gives a write: the database's time in Unix ms, and a version from the sequence.
    struct Entry {
        let now: Int64
        let version: UInt64
    }

    /// The advisory lock key of a table: a namespace in the high half (no other lock of ours uses
    /// it), FNV-1a of the table key in the low half. The same on every node (not `hashValue`). Two
    /// tables sharing a key only wait for each other's writes.
    static func key(_ tableKey: String) -> Int64 {
        var hash: UInt32 = 2_166_136_261
        for byte in tableKey.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        return Int64(0x746f_6402) << 32 | Int64(hash)
    }

    /// Stamps more than this far ahead of the database's clock are refused rather than waited for.
    static let maximumSettleMilliseconds: Int64 = 2_000

    /// Created (or replaced) at start with the tables, under the schema lock.
    static let statements = [
        "CREATE SEQUENCE IF NOT EXISTS todo_versions",
        """
        CREATE OR REPLACE FUNCTION todo_clock_ms() RETURNS bigint LANGUAGE sql VOLATILE AS
        $$ SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint $$
        """,
        // Until the clock's millisecond is at least `target`: one sleep for the rest of the time, not a loop of short ones.
        """
        CREATE OR REPLACE FUNCTION todo_clock_reach(target bigint) RETURNS bigint LANGUAGE plpgsql AS $$
        DECLARE now_exact numeric;
        BEGIN
            LOOP
                now_exact := extract(epoch FROM clock_timestamp()) * 1000;
                EXIT WHEN floor(now_exact) >= target;
                PERFORM pg_sleep((target - now_exact) / 1000);
            END LOOP;
            RETURN floor(now_exact)::bigint;
        END $$
        """,
        """
        CREATE OR REPLACE FUNCTION todo_write_reach(stamp bigint) RETURNS bigint LANGUAGE plpgsql AS $$
        DECLARE now_ms bigint := todo_clock_ms();
        BEGIN
            IF stamp - now_ms > \(maximumSettleMilliseconds) THEN
                RAISE EXCEPTION 'the table''s last updatedAt is % ms ahead of the database server''s clock (copied from a server '
                    'whose clock ran ahead?); writes to it resume once the clock has passed it', stamp - now_ms USING ERRCODE = 'TD001';
            END IF;
            RETURN todo_clock_reach(stamp);
        END $$
        """,
        """
        CREATE OR REPLACE FUNCTION todo_query_gate(gate bigint, p_table text, OUT now_ms bigint, OUT newest bigint) LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_advisory_xact_lock(gate);
            now_ms := todo_clock_ms();
            SELECT max(updated_at) INTO newest FROM todo_rows WHERE table_key = p_table;
        END $$
        """,
        """
        CREATE OR REPLACE FUNCTION todo_query_gate_after(gate bigint, newest bigint) RETURNS bigint LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM todo_clock_reach(newest + 1);
            PERFORM pg_advisory_xact_lock(gate);
            RETURN todo_clock_ms();
        END $$
        """,
        // A database written before the sequence existed: start above every version handed out.
        """
        SELECT setval('todo_versions', GREATEST(
            (SELECT COALESCE(max(last_version), 0) FROM todo_tables), (SELECT COALESCE(max(version), 0) FROM todo_rows), 1))
        WHERE NOT (SELECT is_called FROM todo_versions)
        """,
    ]

    /// Takes the gate and reads the table's meta in one statement; its `now` is the database's
    /// clock, but above the table's newest updatedAt (an index-only scan of one entry), so a write
    /// stamps above every write answered before it began, even in the same millisecond (protocol
    /// §4.6.1, checklist 133); the settle then waits for the clock to reach that stamp.
    /// `lockingTable`: its
    /// `todo_tables` row locked too. Nil meta: no such table. `firstRow`: an id key whose row is
    /// then read and locked in the same statement, after the gate (as `PostgresWriteBase.rowSQL` does).
    ///
    /// Plain SQL, no PL/pgSQL call: the gate is the innermost subquery, fenced by `OFFSET 0` (a
    /// subquery with a volatile output is never flattened nor pruned), so the clock and the
    /// version are read after the lock is held, and the row's subquery is LATERAL on them, so it
    /// locks the row after the gate too. Why one statement: a write's first round trip then runs
    /// two statements (BEGIN and this) instead of three, and no function call.
    static func enter(_ connection: PostgresConnection, _ tableKey: String, lockingTable: Bool, firstRow: String? = nil)
        throws -> (entry: Entry, meta: PostgresTableSchema.Meta?, firstRow: StoredRow?)
    {
        var parameters: [PostgresValue] = [.int(key(tableKey)), .text(tableKey)]
        if let firstRow { parameters.append(.text(firstRow)) }
        let sql = enterSQL(lockingTable: lockingTable, readingRow: firstRow != nil)
        guard let row = try connection.query(sql, parameters).first else { return (Entry(now: 0, version: 0), nil, nil) }
        let entry = Entry(now: try row.decode(0), version: UInt64(try row.decode(1, as: Int64.self)))
        guard try row.decode(2, as: String?.self) != nil else { return (entry, nil, nil) }
        let read = firstRow != nil ? try PostgresTableSchema.row(row, at: 2 + PostgresTableSchema.metaColumnCount) : nil
        return (entry, try PostgresTableSchema.meta(row, at: 2), read)
    }

    /// The gate's entry (see `enter`): `$1` the gate's key, `$2` the table's key, `$3` the id key
    /// of the row read and locked (`readingRow`), whose columns follow the meta's.
    static func enterSQL(lockingTable: Bool, readingRow: Bool) -> String {
        let gate = """
            (SELECT GREATEST(todo_clock_ms(), (SELECT max(n.updated_at) + 1 FROM todo_rows n WHERE n.table_key = $2)) AS now_ms,
                nextval('todo_versions') AS version
             FROM (SELECT pg_advisory_xact_lock_shared($1) AS held OFFSET 0) AS gate OFFSET 0) AS g
            """
        let columns = "g.now_ms, g.version, \(PostgresTableSchema.metaColumns)" + (readingRow ? ", r.*" : "")
        let row = readingRow
            ? " LEFT JOIN LATERAL (SELECT \(PostgresTableSchema.rowColumns) FROM todo_rows r WHERE r.table_key = $2 AND r.id_key = $3 "
                + "AND g.version IS NOT NULL FOR UPDATE) r ON true"
            : ""
        return lockingTable
            ? "SELECT \(columns) FROM \(gate) CROSS JOIN todo_tables t\(row) WHERE t.key = $2 FOR UPDATE OF t"
            : "SELECT \(columns) FROM \(gate) LEFT JOIN todo_tables t ON t.key = $2\(row)"
    }

    /// Waits until the database's clock has reached `stamp` (see the type's comment), just before
    /// the transaction commits, in the COMMIT's round trip: one reading of the clock in plain SQL,
    /// and `todo_write_reach` (PL/pgSQL, which sleeps) only when the stamp is ahead of it.
    static func settle(_ connection: PostgresConnection, after stamp: Int64) {
        connection.runBeforeCommit(settleSQL, [.int(stamp)])
    }

    static let settleSQL = "SELECT CASE WHEN todo_clock_ms() >= $1 THEN 0 ELSE todo_write_reach($1) END"

    /// The bound of a query's answer: rows with an updatedAt below it (see the type's comment). Run
    /// outside a transaction: the gate is let go when each statement's own transaction ends (a
    /// lock held by a session could outlive a cancelled statement and close the gate for good). A
    /// newest stamp far ahead of the clock (rows copied from a server whose clock ran ahead) is
    /// not waited for: those rows are answered once the clock has passed them, as writes resume.
    static func visibleBound(_ connection: PostgresConnection, _ tableKey: String) throws -> Int64 {
        let gate = key(tableKey)
        let row = try connection.query("SELECT now_ms, newest FROM todo_query_gate($1, $2)", [.int(gate), .text(tableKey)])[0]
        let now = try row.decode(0, as: Int64.self)
        guard let newest = try row.decode(1, as: Int64?.self), newest >= now, newest - now <= maximumSettleMilliseconds else {
            return now
        }
        return try connection.query("SELECT todo_query_gate_after($1, $2)", [.int(gate), .int(newest)])[0].decode(0)
    }
}
