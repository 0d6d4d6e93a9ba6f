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
    init(unique: [UInt8], widestShortID: Int) {
        self.unique = unique
        self.widestShortID = widestShortID
    }

    /// The widest short id among the current numbers, at least `minimum` characters each
    /// unless the id is shorter: the id column's width, known before the first row.
    public let widestShortID: Int

    public func isCurrent(_ number: Int) -> Bool { number >= 0 && number < unique.count && unique[number] > 0 }

    /// The fewest characters of the id of `number` that no other id of the table starts with
    /// (at most 255; the id itself may be shorter).
    public func uniqueLength(_ number: Int) -> Int { isCurrent(number) ? Int(unique[number]) : 0 }
}

extension Store {
    /// See `NumberedIDs`; `minimum` is the fewest characters a short id shows. Kept in
    /// `.todo/cache/numbered/<table>` (`NumberedIDsCache`) while the index of ids is the one it
    /// was made from, so that a listing's first line does not wait for a pass over the whole
    /// index (2.4 s at a million items); else made by one pass over the index's buckets, read
    /// as bytes (not kept), and saved for the next command.
    public func numberedIDs(table: String, minimum: Int) throws(StoreError) -> NumberedIDs? {
        guard IDIndex.isVouched(table, in: self), let stamp = fs.stamp(layout.absolute(IDIndex.stampFile(table))) else { return nil }
        let next = try nextItemNumber(table: table) ?? 1
        let extra = try knownIDKeysWithoutItems(table: table).map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
        let key = NumberedIDsCache.key(stamp: stamp, next: next, minimum: minimum, extra: extra)
        if let cached = NumberedIDsCache.load(self, table, key: key, count: next) { return cached }
        guard let made = try numberedIDsFromIndex(table: table, next: next, minimum: minimum, extra: extra) else { return nil }
        // Saved only when no commit changed the index during the pass (it restamps after).
        if fs.stamp(layout.absolute(IDIndex.stampFile(table))) == stamp { NumberedIDsCache.save(self, table, key: key, made) }
        return made
    }

    /// The pass over the index: its entries in key order, the ids of pending deletes and
    /// conflicts (`extra`, sorted by bytes) merged in.
    private func numberedIDsFromIndex(table: String, next: Int, minimum: Int, extra: [[UInt8]]) throws(StoreError) -> NumberedIDs? {
        guard let buckets = IDIndex.buckets(table, in: self) else { return nil }
        var pass = NumberingPass(count: next, minimum: minimum)
        var extraAt = 0
        for bucket in buckets {
            guard let (bytes, entries) = bucketEntries(table, bucket.name) else { return nil }
            for entry in entries {
                // An item without a number, or a number past `next`: the files disagree; sort.
                guard let n = entry.number, n < next else { return nil }
                let key = bytes[entry.key]
                while extraAt < extra.count && extra[extraAt].lexicographicallyPrecedes(key) {
                    pass.visit(extra[extraAt][...], nil)
                    extraAt += 1
                }
                if extraAt < extra.count && extra[extraAt].elementsEqual(key) { extraAt += 1 }
                pass.visit(key, n)
            }
        }
        while extraAt < extra.count {
            pass.visit(extra[extraAt][...], nil)
            extraAt += 1
        }
        return pass.finish()
    }

    /// A bucket's bytes and its entries as ranges of them: scanned as bytes when written as
    /// `IDIndex` writes it, else parsed as JSON (`IDIndex.readEntries`). Nil when damaged.
    private func bucketEntries(_ table: String, _ name: String) -> ([UInt8], [(key: Range<Int>, number: Int?)])? {
        let path = layout.absolute(IDIndex.bucketFile(table, name))
        if let bytes = (try? fs.readFile(path)) ?? nil, let entries = BucketScan.entries(bytes) { return (bytes, entries) }
        guard let parsed = IDIndex.readEntries(table, name, in: self) else { return nil }
        var bytes: [UInt8] = []
        var entries: [(key: Range<Int>, number: Int?)] = []
        for entry in parsed {
            let start = bytes.count
            bytes += entry.key.utf8
            entries.append((start..<bytes.count, entry.number))
        }
        return (bytes, entries)
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

/// The pass of `numberedIDs` over the keys in byte order (the order of Unicode scalars), as
/// UTF-8 bytes: each key's longest prefix shared with either neighbour, counted in scalars.
struct NumberingPass {
    private var unique: [UInt8]
    private let minimum: Int
    private var widest = 0
    private var previous: ArraySlice<UInt8>?
    /// The key before, waiting for the prefix it shares with the next one.
    private var waiting: (number: Int?, key: ArraySlice<UInt8>, shared: Int)?

    init(count: Int, minimum: Int) {
        unique = [UInt8](repeating: 0, count: count)
        self.minimum = minimum
    }

    /// The next key in order; `number` nil for an id without an item file.
    mutating func visit(_ key: ArraySlice<UInt8>, _ number: Int?) {
        let shared = previous.map { Self.sharedScalars($0, key) } ?? 0
        if let w = waiting { settle(w, nextShared: shared) }
        waiting = (number, key, shared)
        previous = key
    }

    mutating func finish() -> NumberedIDs {
        if let w = waiting { settle(w, nextShared: 0) }
        waiting = nil
        return NumberedIDs(unique: unique, widestShortID: widest)
    }

    private mutating func settle(_ w: (number: Int?, key: ArraySlice<UInt8>, shared: Int), nextShared: Int) {
        guard let n = w.number else { return }
        let shared = max(w.shared, nextShared)
        unique[n] = UInt8(min(255, shared + 1))
        // The key's length in scalars only matters when this short id could be the widest.
        if max(minimum, shared + 1) > widest { widest = max(widest, min(Self.scalarCount(w.key), max(minimum, shared + 1))) }
    }

    /// Scalars of the longest common prefix: common bytes, cut back to the start of a scalar
    /// (two different scalars with the same lead byte differ in a continuation byte).
    static func sharedScalars(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Int {
        var i = a.startIndex, j = b.startIndex
        while i < a.endIndex && j < b.endIndex && a[i] == b[j] {
            i += 1
            j += 1
        }
        while i > a.startIndex && i < a.endIndex && a[i] & 0xC0 == 0x80 { i -= 1 }
        return scalarCount(a[a.startIndex..<i])
    }

    static func scalarCount(_ bytes: ArraySlice<UInt8>) -> Int {
        var n = 0
        for byte in bytes where byte & 0xC0 != 0x80 { n += 1 }
        return n
    }
}

/// A bucket of the index of ids read as bytes, as `IDIndex` writes it: `{"ids": ["<key>
/// <number>", …]}` (`StringListScan`), keys in order, the number after the last space (`-` for
/// none). Anything else (an escape, a damaged file) is nil here, and left to the JSON parser.
enum BucketScan {
    static func entries(_ b: [UInt8]) -> [(key: Range<Int>, number: Int?)]? {
        guard let strings = StringListScan.strings(b, member: "ids") else { return nil }
        var result: [(key: Range<Int>, number: Int?)] = []
        result.reserveCapacity(max(strings.count, IDIndex.bucketLimit))
        for string in strings {
            guard let space = b[string].lastIndex(of: 0x20) else { return nil }
            let key = string.lowerBound..<space, tail = b[(space + 1)..<string.upperBound]
            var number: Int?
            if !tail.elementsEqual([UInt8(ascii: "-")]) {
                guard let n = parseNumber(tail) else { return nil }
                number = n
            }
            if let last = result.last, !b[last.key].lexicographicallyPrecedes(b[key]) { return nil }
            result.append((key, number))
        }
        return result
    }

    /// As `ItemNumbers.parse`: decimal digits, no leading zero, at most 18.
    private static func parseNumber(_ digits: ArraySlice<UInt8>) -> Int? {
        guard let first = digits.first, first != UInt8(ascii: "0"), digits.count <= 18 else { return nil }
        var n = 0
        for d in digits {
            guard d >= UInt8(ascii: "0") && d <= UInt8(ascii: "9") else { return nil }
            n = n * 10 + Int(d - UInt8(ascii: "0"))
        }
        return n
    }
}
