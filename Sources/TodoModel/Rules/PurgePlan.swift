/// Why `todo purge` refused; nothing changes (sync.md §6.1). `TodoCLI` words it.
public enum PurgeRefusal: Error, Equatable, Sendable {
    /// The table has pending operations (and maybe open conflicts) and `--force` was not given.
    case pending(table: String, operations: Int, conflicts: Int)
    /// `--query-id` names no query of the table.
    case unknownQuery(table: String, query: String, known: [String])

}

/// The effect of one purge, committed as one transaction (§6.5).
public struct PurgePlan: Sendable {
    /// Item files to write (items returned to their last server copy that stay).
    public var itemWrites: [Item] = []
    /// Ids of item files to remove.
    public var itemRemovals: [String] = []
    /// Dropped operations (`--force`).
    public var operationRemovals: [PendingOperation] = []
    /// Ids of dropped conflict files (`--force`).
    public var conflictRemovals: [String] = []
    /// One `purge force` receipt per dropped operation, in queue order; the store numbers them.
    public var receipts: [Receipt] = []
    /// The table's sync state with the tokens reset.
    public var table: TableConfig
    /// How many query tokens were removed.
    public var tokensReset = 0
}

/// The purge rules of sync.md §6: pure. Filter evaluation is the caller's (`matches`), because the
/// OData evaluator lives with the wire formats, not in the model.
public enum Purge {
    /// - Parameters:
    ///   - items: the local items of the table that the plan decides on: those with operations or
    ///     conflicts at least (the caller decides on the others with `removes`, a batch at a time).
    ///   - operations, conflicts: the table's pending operations and open conflicts.
    ///   - query: `--query-id`; nil purges the whole table.
    ///   - matches: whether an item matches that query's filter (unused without a query).
    public static func plan(table: TableConfig, items: [Item], operations: [PendingOperation], conflicts: [Conflict],
                            force: Bool, query: String?, now: String, matches: (Item) -> Bool) throws(PurgeRefusal) -> PurgePlan {
        if let query, table.queries[query] == nil {
            throw .unknownQuery(table: table.name, query: query, known: table.queries.keys.sorted())
        }
        if !force && (!operations.isEmpty || !conflicts.isEmpty) {
            throw .pending(table: table.name, operations: operations.count, conflicts: conflicts.count)
        }
        var plan = PurgePlan(table: table)

        // §6.2: every item with dropped operations returns to the last server copy the replica knows.
        var files: [String: Item] = [:]
        for item in items { files[ItemID.key(item.id)] = item }
        var state = files
        let ops = operations.sorted { $0.sequence < $1.sequence }
        var firstOp: [String: PendingOperation] = [:]
        for op in ops where firstOp[ItemID.key(op.id)] == nil { firstOp[ItemID.key(op.id)] = op }
        var conflictServer: [String: Item?] = [:]
        for c in conflicts { conflictServer[ItemID.key(c.id)] = .some(c.server) }
        for (key, op) in firstOp {
            let known = conflictServer[key] ?? op.base
            if let copy = known, !copy.isDeleted {
                state[key] = Item(id: copy.id, fields: copy.fields,
                                  system: SystemProperties(createdAt: copy.system.createdAt, updatedAt: copy.system.updatedAt,
                                                           version: copy.system.version))
            } else {
                state[key] = nil
            }
        }

        // §6.3 and §6.4 on the result.
        for key in state.keys.sorted() where removes(state[key]!, query: query, matches: matches) {
            state[key] = nil
        }
        for key in Set(files.keys).union(state.keys).sorted() {
            switch (files[key], state[key]) {
            case (let file?, nil): plan.itemRemovals.append(file.id)
            case (let file, let after?) where file != after: plan.itemWrites.append(after)
            default: break
            }
        }

        plan.operationRemovals = ops
        plan.conflictRemovals = conflicts.map(\.id)
        for op in ops {
            plan.receipts.append(Receipt(at: now, decision: .purge, rule: "force", table: op.table, id: op.id,
                                         operation: op.reference, kept: state[ItemID.key(op.id)]?.userCopy,
                                         lost: ["client": op.item.fields, "server": [:]]))
        }

        for name in plan.table.queries.keys.sorted() where query == nil || name == query {
            if plan.table.queries[name]?.token != nil {
                plan.table.queries[name]?.token = nil
                plan.tokensReset += 1
            }
        }
        return plan
    }

    /// Whether purging removes an item with no dropped operation (§6.3): all of them, or those
    /// that match the query's filter.
    public static func removes(_ item: Item, query: String?, matches: (Item) -> Bool) -> Bool {
        query == nil || matches(item)
    }
}

/// "1 item", "2 items": counts in messages.
public enum Plural {
    public static func count(_ n: Int, _ noun: String, _ plural: String? = nil) -> String {
        n == 1 ? "1 \(noun)" : "\(n) \(plural ?? noun + "s")"
    }
}
