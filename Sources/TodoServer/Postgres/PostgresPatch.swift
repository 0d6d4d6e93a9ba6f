import PostgresClient
import TableProtocol
import TodoModel

/// PATCHes in one round trip of one statement (issue 18 item 6: durable PATCH throughput).
///
/// A `write` runs its body in the node, between two round trips: the body needs the row and the
/// stamps, which the database hands out under the table's gate, and the database needs what the
/// body wrote. A PATCH's body is simple enough to run in the database instead: `todo_patch_many`
/// takes the gate, and for each PATCH of its batch (`PostgresPatchBatches`: the node's PATCHes to
/// the table that arrived together) locks the row, checks the version asked for, merges the patch
/// into the row's fields (`jsonb ||`: a PATCH sets the columns it names, keeps the others), stamps
/// it exactly as `TableWrite.nextStamp` does (the database's clock, above the table's last
/// updatedAt, a version from the sequence); then it settles (`PostgresWriteGate`) and commits, all
/// in the statement's own transaction. So the no-missed-row argument holds unchanged: the stamps
/// are read after the gate is held, and the commit waits for the clock to reach the last one.
///
/// The node keeps for itself what needs the table's schema: it runs a PATCH here only when every
/// column it sets is already in the schema with the value's type (or gets a null), so the write
/// adds no column and changes no type: the table's row is not locked, as in a `write` that adds
/// no column. Columns only ever get added, and a typed column keeps its type, so a schema seen
/// earlier decides this exactly. Anything else (a new column, a type to learn or refuse, a U+0000,
/// a row that may outgrow `--max-row-size`) returns nil and runs as a `write`, which says why.
enum PostgresPatch {
    /// What the statement found for a PATCH; the numbers `todo_patch_many` returns.
    enum Found: Int64 {
        case stored = 0, conflict = 1, missing = 2, mayBeTooLarge = 3, noTable = 4
    }

    /// What the statement answered for one PATCH: what it found, the table's schema as it read
    /// it, and the row (written, or the server's row of a conflict).
    struct Answer: Sendable {
        let found: Found
        /// Nil when the table was not found.
        let schema: TableSchema?
        let row: StoredRow?
    }

    /// A batch's statement gave fewer rows than it had PATCHes.
    struct MissingAnswer: Error, CustomStringConvertible {
        var description: String { "todo_patch_many answered fewer rows than it was given PATCHes" }
    }

    /// Created (or replaced) at start with the other functions, under the schema lock: an existing
    /// database gets it from the first node of this version that starts; older nodes never call it
    /// (they call `todo_patch`, which stays as they created it).
    ///
    /// `p_items`: a JSON array of `[id key, patch object, expected]`, run in order, one row of
    /// answer each; a missing table answers one row (found 4). `expected`: null, any version; -1,
    /// none (a weak tag, or text that is not one of our versions); else the version the row must
    /// have. `p_max_bytes`: `--max-row-size`; a merge whose bound (the id plus twice the fields'
    /// text, which is never below `RowFootprint.dataBytes`) passes it is not written but handed
    /// back to the node (`mayBeTooLarge`), which checks exactly.
    ///
    /// Each PATCH is one UPDATE whose WHERE holds every check, so the common case runs one
    /// statement: under READ COMMITTED an UPDATE locks the row and checks its WHERE again on the
    /// row's newest version (what `FOR UPDATE` gave before), so If-Match stays exact. Only when it
    /// wrote nothing does a `SELECT … FOR UPDATE` say why (nothing was written, so the PATCH takes
    /// effect at that read). Stamps are taken after the gate is held, as `PostgresWriteGate.enter`
    /// takes them: the clock's millisecond, but above the table's newest updatedAt, so a PATCH
    /// stamps above every write answered before it began (checklist 133); the settle waits until
    /// the clock has reached the last stamp.
    static let statements = [
        """
        CREATE OR REPLACE FUNCTION todo_patch_many(p_gate bigint, p_table text, p_items jsonb, p_max_bytes bigint,
            OUT o_found bigint, OUT o_name text, OUT o_soft_delete boolean, OUT o_id_type text, OUT o_columns text,
            OUT o_last_updated_at bigint, OUT o_last_version bigint, OUT o_last_id bigint,
            OUT o_id text, OUT o_created_at bigint, OUT o_updated_at bigint, OUT o_version bigint, OUT o_deleted boolean, OUT o_fields text)
        RETURNS SETOF record LANGUAGE plpgsql AS $$
        DECLARE
            t todo_tables%ROWTYPE;
            r todo_rows%ROWTYPE;
            item jsonb;
            p_id text;
            p_patch jsonb;
            p_expected bigint;
            stamp bigint;
            newest bigint;
            floor_stamp bigint;
            last_stamp bigint := NULL;
        BEGIN
            PERFORM pg_advisory_xact_lock_shared(p_gate);
            SELECT * INTO t FROM todo_tables WHERE key = p_table;
            IF NOT FOUND THEN
                o_found := 4;
                RETURN NEXT;
                RETURN;
            END IF;
            o_name := t.name; o_soft_delete := t.soft_delete; o_id_type := t.id_type; o_columns := t.columns::text;
            o_last_updated_at := t.last_updated_at; o_last_version := t.last_version; o_last_id := t.last_id;
            SELECT max(updated_at) INTO newest FROM todo_rows WHERE table_key = p_table;
            floor_stamp := GREATEST(t.last_updated_at, newest) + 1;
            FOR item IN SELECT value FROM jsonb_array_elements(p_items) LOOP
                p_id := item ->> 0;
                p_patch := item -> 1;
                p_expected := (item ->> 2)::bigint;
                stamp := GREATEST(todo_clock_ms(), floor_stamp);
                UPDATE todo_rows SET updated_at = stamp, version = nextval('todo_versions'), fields = fields || p_patch
                WHERE table_key = p_table AND id_key = p_id AND NOT deleted AND (p_expected IS NULL OR version = p_expected)
                    AND octet_length(id) + 2 * octet_length((fields || p_patch)::text) <= p_max_bytes
                RETURNING * INTO r;
                IF FOUND THEN
                    o_found := 0;
                    last_stamp := GREATEST(last_stamp, stamp);
                ELSE
                    SELECT * INTO r FROM todo_rows WHERE table_key = p_table AND id_key = p_id FOR UPDATE;
                    IF NOT FOUND OR r.deleted THEN
                        o_found := 2;
                        r := NULL;
                    ELSIF p_expected IS NULL OR r.version = p_expected THEN
                        o_found := 3;
                    ELSE
                        o_found := 1;
                    END IF;
                END IF;
                o_id := r.id; o_created_at := r.created_at; o_updated_at := r.updated_at; o_version := r.version;
                o_deleted := r.deleted; o_fields := r.fields::text;
                RETURN NEXT;
            END LOOP;
            IF last_stamp IS NOT NULL AND todo_clock_ms() < last_stamp THEN
                PERFORM todo_write_reach(last_stamp);
            END IF;
        END $$
        """,
    ]

    static let sql = "SELECT * FROM todo_patch_many($1, $2, $3, $4)"

    /// The batch's JSON (`p_items`) and the order it runs the items in: by id key, so that two
    /// batches that share rows lock them in the same order (no deadlock between them); two PATCHes
    /// of one row keep their order.
    static func items(_ items: [PostgresPatchBatches.Item]) -> (json: String, order: [Int]) {
        let order = items.indices.sorted { a, b in
            items[a].idKey == items[b].idKey ? a < b : items[a].idKey.utf8.lexicographicallyPrecedes(items[b].idKey.utf8)
        }
        var json = "["
        for (n, index) in order.enumerated() {
            let item = items[index]
            json += (n == 0 ? "[" : ",[") + JSONValue.string(item.idKey).compactText + "," + item.json + ","
                + (item.expected.map { String($0) } ?? "null") + "]"
        }
        return (json + "]", order)
    }

    /// The answers in the items' order, from the rows in the run's `order`. The schema is read
    /// once, from the first row (every row carries the same).
    static func answers(_ rows: [PostgresRow], order: [Int]) throws -> [Answer] {
        guard let first = rows.first, let firstFound = Found(rawValue: try first.decode(0)) else { throw MissingAnswer() }
        if firstFound == .noTable {
            return order.map { _ in Answer(found: .noTable, schema: nil, row: nil) }
        }
        guard rows.count == order.count else { throw MissingAnswer() }
        let schema = try PostgresTableSchema.meta(first, at: 1).schema
        var answers = [Answer?](repeating: nil, count: order.count)
        for (row, index) in zip(rows, order) {
            guard let found = Found(rawValue: try row.decode(0)) else { throw MissingAnswer() }
            answers[index] = Answer(found: found, schema: schema,
                                    row: try PostgresTableSchema.row(row, at: 1 + PostgresTableSchema.metaColumnCount))
        }
        return answers.map { $0! }
    }

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
    /// `TableStore.patch`: in the next batch of this node's PATCHes to the table
    /// (`PostgresPatchBatches`), one statement in its own transaction. Nil when `PostgresPatch`
    /// says the PATCH needs a `write`, or when the table is not known yet.
    func patch(_ table: String, _ patch: RowPatch, ticket: inout DurabilityTicket)
        throws -> (outcome: TableService.WriteOutcome, schema: TableSchema)?
    {
        guard let known = try schema(table, ticket: &ticket),
              let json = PostgresPatch.patchJSON(patch.columns, schema: known) else { return nil }
        let item = PostgresPatchBatches.Item(table: table.lowercased(), idKey: StoredRowKey(id: patch.id).lowercased, json: json,
                                             expected: PostgresPatch.expectedVersion(patch.expected?.version))
        let answer: PostgresPatch.Answer
        switch patchBatches.submit(item, run: runPatches) {
        case .success(let value): answer = value
        case .failure(let error): throw Self.storageError(error)
        }
        guard let schema = answer.schema, answer.found != .mayBeTooLarge else { return nil }
        guard answer.found != .missing, let stored = answer.row else { return (.missing, schema) }
        return answer.found == .stored ? (.stored(stored), schema) : (.conflict(stored, status: patch.expected?.status ?? 412), schema)
    }

    /// One batch, one statement. A deadlock runs it again (it was rolled back); a lost session is a
    /// 503 for each PATCH that says the outcome is unknown, as at a COMMIT; any other error of the
    /// server (the batch was rolled back) runs each PATCH alone, so each gets its own answer.
    private func runPatches(_ items: [PostgresPatchBatches.Item]) -> PostgresPatchBatches.Answers {
        let key = items[0].table
        let (json, order) = PostgresPatch.items(items)
        let parameters: [PostgresValue] = [.int(PostgresWriteGate.key(key)), .text(key), .jsonb(json), .int(Int64(quota.limits.maxRowBytes))]
        var attempt = 1
        while true {
            let rows: [PostgresRow]
            do {
                rows = try pool.query(PostgresPatch.sql, parameters)
            } catch let error where error.isTransactionConflict && attempt < 5 {
                attempt += 1
                continue
            } catch let error where error.closesConnection {
                let unknown = Self.storageError(PostgresError.transactionOutcomeUnknown("\(error); the PATCH may or may not have been "
                                                                                         + "written: read the row to see"))
                return items.map { _ in .failure(unknown) }
            } catch .server(_) where items.count > 1 {
                return items.map { runPatches([$0])[0] }
            } catch {
                return items.map { _ in .failure(Self.storageError(error)) }
            }
            do {
                let answers = try PostgresPatch.answers(rows, order: order)
                if let schema = answers.first?.schema { learn(key, schema) }
                return answers.map { .success($0) }
            } catch {
                return items.map { _ in .failure(Self.storageError(error)) }
            }
        }
    }
}
