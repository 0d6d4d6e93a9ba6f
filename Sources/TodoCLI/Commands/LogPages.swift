import TodoBasics
import TodoModel
import TodoStore

/// `todo log` from the pages of the index of pending operations (`Store.queuePages`): the queue
/// in order without a sort, so the first line comes after one page (issue 21 item 4).
///
/// Short ids come from the index of ids (`Store.sharedPrefixLengths`), asked for a batch of
/// operations at a time: the first batch is one page, so that the first line comes at once;
/// each next one is about twice as long, up to `batchLimit` names, so that a million operations ask
/// about twenty times, each reading the index's buckets once. An id the index cannot answer for
/// is shown whole (never ambiguous).
enum LogPages {
    static let batchLimit = 65_536

    /// False, with nothing printed, when the pages cannot be used: the index of pending
    /// operations does not vouch for the queue, or (human form) a table shown has no vouching
    /// index of ids.
    static func walk(_ s: Store, table: String?, json: Bool, receipts: [Receipt], receiptShown: inout [Int: Int],
                     _ emit: (PendingOperation, Int) -> Void) throws(StoreError) -> Bool {
        if !json {
            let existing = Set(try s.tables())
            for t in Set(receipts.map(\.table)).union(table.map { [$0] } ?? existing) {
                guard existing.contains(t), s.idIndexVouches(table: t) else { return false }
            }
        }
        guard let pages = try s.queuePages(.operations) else { return false }
        var batch: [OperationFileName] = []
        var limit = 1
        func flush() throws(StoreError) {
            defer {
                limit = min(max(limit, batch.count) * 2, batchLimit)
                batch = []
            }
            if json {
                for name in batch { if let op = try s.operation(name) { emit(op, 0) } }
                return
            }
            var keys: [String: [String]] = [:]
            var keyOf: [String?] = []
            for name in batch {
                let key = try LogCommand.idKey(of: name, in: s)
                keyOf.append(key)
                if let key { keys[name.table, default: []].append(key) }
            }
            let shared = try sharedLengths(keys, s)
            for (name, key) in zip(batch, keyOf) {
                guard let op = try s.operation(name) else { continue }
                let whole = ItemID.key(op.id).unicodeScalars.count
                emit(op, key.map { shown($0, whole, shared[name.table]?[$0]) } ?? whole)
            }
        }
        for page in pages {
            for name in try s.queuePage(.operations, page) where table == nil || name.table == table {
                batch.append(name)
            }
            if batch.count >= limit { try flush() }
        }
        try flush()
        if !json {
            var keys: [String: [String]] = [:]
            for r in receipts { keys[r.table, default: []].append(ItemID.key(r.id)) }
            let shared = try sharedLengths(keys, s)
            for (i, r) in receipts.enumerated() {
                let key = ItemID.key(r.id)
                receiptShown[i] = shown(key, key.unicodeScalars.count, shared[r.table]?[key])
            }
        }
        return true
    }

    private static func sharedLengths(_ keys: [String: [String]], _ s: Store) throws(StoreError) -> [String: [String: Int]] {
        var shared: [String: [String: Int]] = [:]
        for (t, list) in keys { shared[t] = try s.sharedPrefixLengths(of: Set(list), table: t) }
        return shared
    }

    /// As `ShortIDSort`: one scalar past the longest prefix shared with another id, at least
    /// `ShortIDs.minimum`, at most the whole id; the whole id when the index had no answer.
    private static func shown(_ key: String, _ whole: Int, _ shared: Int?) -> Int {
        guard let shared else { return whole }
        return min(key.unicodeScalars.count, max(ShortIDs.minimum, shared + 1))
    }
}
