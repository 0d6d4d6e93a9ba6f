import TodoBasics
import TodoModel

/// What `list` and `export` need to print a table in the order of its item numbers (the order
/// its items came to this replica) as they read it, in flat memory: no sort of a million items
/// before the first line (issue 21).
///
/// Built from the index of ids (`IDIndex`), walked bucket by bucket in key order with the ids
/// of pending deletes and conflicts merged in, one byte per number (1 MB at a million):
/// - which numbers are current: an id that came back got a newer number, and its old one,
///   still naming it in the numbers files, is retired;
/// - for each current number, how many characters of its id no neighbour in key order shares,
///   which is all a short id needs (`ShortIDs`), so there is no sort by id either.
/// Nil from `Store.numberedIDs` while the index does not vouch for the folders, or when an item
/// has no number yet (a table numbered before numbers existed): the caller sorts instead.
public struct NumberedIDs: Sendable {
    /// By number: 0 when it is not an item's current number, else 1 + the longest prefix (in
    /// Unicode scalars) its id shares with a neighbour, at most 255.
    let unique: [UInt8]
    /// The widest short id among the current numbers, at least `minimum` characters each
    /// unless the id is shorter: the id column's width, known before the first row.
    public let widestShortID: Int

    public func isCurrent(_ number: Int) -> Bool { number >= 0 && number < unique.count && unique[number] > 0 }

    /// The fewest characters of the id of `number` that no other id of the table starts with
    /// (at most 255; the id itself may be shorter).
    public func uniqueLength(_ number: Int) -> Int { isCurrent(number) ? Int(unique[number]) : 0 }
}

extension Store {
    /// See `NumberedIDs`; `minimum` is the fewest characters a short id shows. Reads the index's
    /// directory and each bucket once (not kept).
    public func numberedIDs(table: String, minimum: Int) throws(StoreError) -> NumberedIDs? {
        guard IDIndex.isVouched(table, in: self), let buckets = IDIndex.buckets(table, in: self) else { return nil }
        let next = try nextItemNumber(table: table) ?? 1
        var unique = [UInt8](repeating: 0, count: next)
        var widest = 0
        let extra = try knownIDKeysWithoutItems(table: table).sorted(by: IDIndex.precedes)
        var extraAt = 0
        // The key before, and the one waiting for its next neighbour.
        var previous: String?
        var waiting: (number: Int?, key: String, shared: Int)?
        func settle(_ w: (number: Int?, key: String, shared: Int), nextKey: String?) {
            guard let n = w.number else { return }
            let shared = max(w.shared, nextKey.map { Self.commonPrefix(w.key.unicodeScalars, $0.unicodeScalars) } ?? 0)
            unique[n] = UInt8(min(255, shared + 1))
            widest = max(widest, min(w.key.unicodeScalars.count, max(minimum, shared + 1)))
        }
        func visit(_ key: String, _ number: Int?) {
            if let w = waiting { settle(w, nextKey: key) }
            waiting = (number, key, previous.map { Self.commonPrefix($0.unicodeScalars, key.unicodeScalars) } ?? 0)
            previous = key
        }
        for bucket in buckets {
            guard let entries = IDIndex.readEntries(table, bucket.name, in: self) else { return nil }
            for entry in entries {
                // An item without a number, or a number past `next`: the files disagree; sort.
                guard let n = entry.number, n < next else { return nil }
                while extraAt < extra.count && IDIndex.precedes(extra[extraAt], entry.key) {
                    visit(extra[extraAt], nil)
                    extraAt += 1
                }
                if extraAt < extra.count && extra[extraAt] == entry.key { extraAt += 1 }
                visit(entry.key, n)
            }
        }
        while extraAt < extra.count {
            visit(extra[extraAt], nil)
            extraAt += 1
        }
        if let w = waiting { settle(w, nextKey: nil) }
        return NumberedIDs(unique: unique, widestShortID: widest)
    }

    /// The item files of a table's current numbers, in number order: the numbers files one at a
    /// time, the item files in batches read on 8 threads (as `forEachItemFile`), 64 first so the
    /// first rows (or a `--limit`) come soon, then twice as many each time up to 2,048. An
    /// item whose file is gone (a pending delete) is skipped. `body` returns false to stop.
    public func forEachItemFileByNumber(table: String, _ numbered: NumberedIDs,
                                        _ body: (Int, ItemFile) throws(StoreError) -> Bool) throws(StoreError) {
        var batch: [(number: Int, key: String, path: String)] = []
        var limit = 64
        func drain() throws(StoreError) -> Bool {
            defer {
                batch.removeAll(keepingCapacity: true)
                limit = min(2048, limit * 2)
            }
            var at = 0
            for file in try readItemFiles(batch.map(\.path), parallel: true) {
                while at < batch.count && batch[at].path != file.path { at += 1 }
                guard at < batch.count else { break }
                // A hashed name holds another id than this number's: not this item.
                if ItemID.key(file.item.id) == batch[at].key, !(try body(batch[at].number, file)) { return false }
                at += 1
            }
            return true
        }
        var stopped = false
        try forEachNumber(table: table) { n, key throws(StoreError) in
            guard numbered.isCurrent(n) else { return true }
            batch.append((n, key, layout.item(table, key)))
            if batch.count >= limit, !(try drain()) { stopped = true }
            return !stopped
        }
        if !stopped, !batch.isEmpty { _ = try drain() }
    }

    /// Every number the numbers files give (retired ones too) with its key, in number order,
    /// one file of 256 at a time. `body` returns false to stop.
    public func forEachNumber(table: String, _ body: (Int, String) throws(StoreError) -> Bool) throws(StoreError) {
        guard let next = try nextItemNumber(table: table), next > 1 else { return }
        for k in 0...(next - 1) / ItemNumbers.perFile {
            guard let numbers = try decode(ItemNumbers.file(layout, table, number: k * ItemNumbers.perFile), ItemNumbers.parseNumbers)
            else { continue }
            for (n, key) in numbers.sorted(by: { $0.key < $1.key }) where !(try body(n, key)) { return }
        }
    }
}
