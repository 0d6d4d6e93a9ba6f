import TodoModel

/// A PATCH of one row said as data, for a store that can run it itself in one step (PostgreSQL:
/// one round trip of one statement, `PostgresPatch`), instead of as a `write` body that the node
/// runs between two round trips. What it does is `TableService.update`'s body, no more: the row
/// must exist, not be deleted and match `expected`; then `columns` are set on it, with a new stamp.
/// A store that cannot promise exactly that (a new column, an owner to check…) answers nil, and
/// the PATCH runs as a `write`.
struct RowPatch {
    let id: String
    /// At least one column: a PATCH that sets none changes nothing (and runs as a `write`).
    let columns: [String: JSONValue]
    /// The version text the row must have, and the status when it has another (412 for If-Match,
    /// 409 for a G2 body's version); a text that is no version of ours never matches. Nil: any.
    let expected: (version: String, status: Int)?

    /// The precondition of `TableService.versionConflict`, as data.
    static func expected(ifMatch: IfMatch?, bodyVersion: String?) -> (version: String, status: Int)? {
        switch ifMatch {
        case .any: return nil
        case .weak: return ("W/", 412)
        case .version(let v): return (v, 412)
        case nil: return bodyVersion.map { ($0, 409) }
        }
    }
}

extension TableStore {
    /// Stores without a one-step PATCH run every PATCH as a `write`.
    func patch(_ table: String, _ patch: RowPatch, ticket: inout DurabilityTicket)
        throws -> (outcome: TableService.WriteOutcome, schema: TableSchema)? { nil }
}

extension TableService {
    /// `update`'s one-step path (`RowPatch`), when the request allows it: a table that exists, a
    /// caller who sees every row (no owner to check), at least one column. Failures map as in `write`.
    func patchInOneStep(_ c: RequestContext, id: String, columns: [String: JSONValue], ifMatch: IfMatch?, bodyVersion: String?,
                        _ ticket: inout DurabilityTicket) throws(ServiceError) -> (outcome: WriteOutcome, schema: TableSchema)? {
        guard !c.table.isNew, c.ownership.owner == nil, !columns.isEmpty else { return nil }
        let patch = RowPatch(id: id, columns: columns, expected: RowPatch.expected(ifMatch: ifMatch, bodyVersion: bodyVersion))
        do {
            return try storage.patch(c.table.name, patch, ticket: &ticket)
        } catch {
            throw .storageUnavailable(error)
        }
    }
}
