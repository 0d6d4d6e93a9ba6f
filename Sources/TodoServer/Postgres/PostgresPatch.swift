import PostgresClient
import TableProtocol
import TodoModel

/// A PATCH in one round trip of one statement (issue 18 item 6: durable PATCH throughput).
///
/// A `write` runs its body in the node, between two round trips: the body needs the row and the
/// stamps, which the database hands out under the table's gate, and the database needs what the
/// body wrote. A PATCH's body is simple enough to run in the database instead: `todo_patch` takes
/// the gate, locks the row, checks the version asked for, merges the patch into the row's fields
/// (`jsonb ||`: a PATCH sets the columns it names, keeps the others), stamps it exactly as
/// `TableWrite.nextStamp` does (the database's clock, above the table's last updatedAt, a version
/// from the sequence), settles (`PostgresWriteGate`) and commits, all in the statement's own
/// transaction. So the no-missed-row argument holds unchanged: the stamp is read after the gate is
/// held, and the commit waits for the clock to pass it.
///
/// The node keeps for itself what needs the table's schema: it runs a PATCH here only when every
/// column it sets is already in the schema with the value's type (or gets a null), so the write
/// adds no column and changes no type: the table's row is not locked, as in a `write` that adds
/// no column. Columns only ever get added, and a typed column keeps its type, so a schema seen
/// earlier decides this exactly. Anything else (a new column, a type to learn or refuse, a U+0000,
/// a row that may outgrow `--max-row-size`) returns nil and runs as a `write`, which says why.
enum PostgresPatch {
    /// What the statement found; the numbers `todo_patch` returns.
    enum Found: Int64 {
        case stored = 0, conflict = 1, missing = 2, mayBeTooLarge = 3, noTable = 4
    }

    /// Created (or replaced) at start with the other functions, under the schema lock: an existing
    /// database gets it from the first node of this version that starts; older nodes never call it.
    ///
    /// `expected`: NULL, any version; -1, none (a weak tag, or text that is not one of our
    /// versions); else the version the row must have. `max_bytes`: `--max-row-size`; a merge whose
    /// bound (the id plus twice the fields' text, which is never below `RowFootprint.dataBytes`)
    /// passes it is not written but handed back to the node (`mayBeTooLarge`), which checks exactly.
    static let statements = [
        """
        CREATE OR REPLACE FUNCTION todo_patch(p_gate bigint, p_table text, p_id text, p_patch jsonb, p_expected bigint, p_max_bytes bigint,
            OUT o_found bigint, OUT o_name text, OUT o_soft_delete boolean, OUT o_id_type text, OUT o_columns text,
            OUT o_last_updated_at bigint, OUT o_last_version bigint, OUT o_last_id bigint,
            OUT o_id text, OUT o_created_at bigint, OUT o_updated_at bigint, OUT o_version bigint, OUT o_deleted boolean, OUT o_fields text)
        LANGUAGE plpgsql AS $$
        DECLARE
            t todo_tables%ROWTYPE;
            r todo_rows%ROWTYPE;
            merged jsonb;
            stamp bigint;
        BEGIN
            PERFORM pg_advisory_xact_lock_shared(p_gate);
            SELECT * INTO t FROM todo_tables WHERE key = p_table;
            IF NOT FOUND THEN
                o_found := 4;
                RETURN;
            END IF;
            o_name := t.name; o_soft_delete := t.soft_delete; o_id_type := t.id_type; o_columns := t.columns::text;
            o_last_updated_at := t.last_updated_at; o_last_version := t.last_version; o_last_id := t.last_id;
            -- The stamp as soon as the gate is held, as `PostgresWriteGate.enter` takes it: the clock
            -- has reached it by the settle, which sleeps only for a table stamped ahead of the clock.
            stamp := GREATEST(todo_clock_ms(), t.last_updated_at + 1);
            SELECT * INTO r FROM todo_rows WHERE table_key = p_table AND id_key = p_id FOR UPDATE;
            IF NOT FOUND OR r.deleted THEN
                o_found := 2;
                RETURN;
            END IF;
            IF p_expected IS NULL OR r.version = p_expected THEN
                merged := r.fields || p_patch;
                IF octet_length(r.id) + 2 * octet_length(merged::text) > p_max_bytes THEN
                    o_found := 3;
                ELSE
                    UPDATE todo_rows SET updated_at = stamp, version = nextval('todo_versions'), fields = merged
                    WHERE table_key = p_table AND id_key = p_id RETURNING * INTO r;
                    IF todo_clock_ms() < stamp THEN
                        PERFORM todo_write_reach(stamp);
                    END IF;
                    o_found := 0;
                END IF;
            ELSE
                o_found := 1;
            END IF;
            o_id := r.id; o_created_at := r.created_at; o_updated_at := r.updated_at; o_version := r.version;
            o_deleted := r.deleted; o_fields := r.fields::text;
        END $$
        """,
    ]

    static let sql = "SELECT * FROM todo_patch($1, $2, $3, $4, $5, $6)"

    /// The columns a PATCH may set here: each one already in `schema` with its value's type, or
    /// set to null. Nil when the write would change the schema or needs `write`'s checks.
    static func patchJSON(_ columns: [String: JSONValue], schema: TableSchema) -> String? {
        for (name, value) in columns {
            guard let known = schema.columns[name] else { return nil }
            switch value {
            case .null: continue
            case .string(let text): guard known == .string, !text.utf8.contains(0) else { return nil }
            case .number: guard known == .number else { return nil }
            case .bool: guard known == .boolean else { return nil }
            default: return nil
            }
            if name.utf8.contains(0) { return nil }
        }
        return JSONValue.object(columns).compactText
    }

    /// The `p_expected` of a precondition: nil (any), -1 (none can match), or the version.
    static func expectedVersion(_ text: String?) -> Int64? {
        guard let text else { return nil }
        guard let version = VersionText.decode(text), VersionText.encode(version) == text, version <= UInt64(Int64.max) else {
            return -1
        }
        return Int64(version)
    }
}

extension PostgresTableStore {
    /// `TableStore.patch`: one statement, in its own transaction. Nil when `PostgresPatch` says the
    /// PATCH needs a `write`, or when the table is not known yet. A deadlock runs it again (it was
    /// rolled back); a lost session is a 503 that says the outcome is unknown, as at a COMMIT.
    func patch(_ table: String, _ patch: RowPatch, ticket: inout DurabilityTicket)
        throws -> (outcome: TableService.WriteOutcome, schema: TableSchema)?
    {
        guard let known = try schema(table, ticket: &ticket),
              let json = PostgresPatch.patchJSON(patch.columns, schema: known) else { return nil }
        let key = table.lowercased()
        let parameters: [PostgresValue] = [
            .int(PostgresWriteGate.key(key)), .text(key), .text(StoredRowKey(id: patch.id).lowercased), .jsonb(json),
            PostgresPatch.expectedVersion(patch.expected?.version).map { .int($0) } ?? .null, .int(Int64(quota.limits.maxRowBytes)),
        ]
        var attempt = 1
        while true {
            let row: PostgresRow
            do {
                row = try pool.query(PostgresPatch.sql, parameters)[0]
            } catch let error where error.isTransactionConflict && attempt < 5 {
                attempt += 1
                continue
            } catch let error where error.closesConnection {
                throw Self.storageError(PostgresError.transactionOutcomeUnknown("\(error); the PATCH may or may not have been "
                                                                                 + "written: read the row to see"))
            } catch {
                throw Self.storageError(error)
            }
            do {
                guard let found = PostgresPatch.Found(rawValue: try row.decode(0)),
                      found != .noTable, found != .mayBeTooLarge else { return nil }
                let schema = try PostgresTableSchema.meta(row, at: 1).schema
                learn(key, schema)
                guard found != .missing, let stored = try PostgresTableSchema.row(row, at: 1 + PostgresTableSchema.metaColumnCount) else {
                    return (.missing, schema)
                }
                return found == .stored ? (.stored(stored), schema) : (.conflict(stored, status: patch.expected?.status ?? 412), schema)
            } catch {
                throw Self.storageError(error)
            }
        }
    }
}
