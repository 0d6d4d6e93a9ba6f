import TodoBasics
import TodoModel

/// The ids of a table's items in sorted order, with their numbers (`ItemNumbers`), derived from
/// the item files and the number files, so that a short id or an id prefix is found without
/// listing 1,000,000 item files (issue 21). The item files stay the truth.
///
/// `.todo/cache/ids/<table>/` (README "The .todo format"), a B-tree of height two:
/// - `directory`: `{"buckets": ["<name> <bound>", …]}`, the buckets in key order, each with the
///   smallest key it may hold (the first bound is ""). A bucket holds the keys from its bound up
///   to the next bucket's bound.
/// - `<name>` (a decimal number): `{"ids": ["<key> <number>", …]}` (`-`: no number), sorted by
///   the keys' UTF-8 bytes (the order of Unicode scalars). A bucket that grows past `bucketLimit` keys is
///   split in two halves under a new name; one emptied by deletions stays until a rebuild.
/// - `stamp`: the items folder's and the numbers folder's stat stamps when the index last
///   matched them.
///
/// So the closest key to an id (its neighbours in sorted order) costs the directory and one to
/// three buckets, and the keys under a prefix cost the buckets of their range: O(1) file reads
/// whatever the size, and a bucket of at most 1,024 keys to parse. Buckets keyed by the first hex
/// characters would not do: ids chosen by people or programs (`task-0001`, counters in UUID form)
/// share long prefixes and would all land in one bucket.
///
/// Trust is PendingIndex's: the index is used only while both folders carry the recorded stamps
/// (any file added, removed or renamed in them moves those, and ctime cannot be set back) and no
/// journal is on disk; otherwise the items folder is listed as before, and a local change or
/// `doctor` rebuilds it. Every commit that changes a table's items either updates its buckets
/// and records the new stamp after it (`stage`, `restamp`), or removes the stamp in the commit
/// itself, so the index is stale, never wrong.
enum IDIndex {
    static let directory = StoreLayout.cacheDirectory + "/ids"
    /// A bucket past this many keys is split; a rebuild fills them half full.
    static let bucketLimit = 1024
    static let stampHeader = "todo ids stamp 1"
    /// A commit that would rewrite more buckets than this (a pull page of new items) leaves the
    /// index stale instead: rebuilding it once costs less than rewriting most buckets per page.
    static let stagedBucketLimit = 32

    struct Entry: Equatable {
        var key: String
        var number: Int?
    }

    static func folder(_ table: String) -> String { directory + "/" + table }
    static func directoryFile(_ table: String) -> String { folder(table) + "/directory" }
    static func stampFile(_ table: String) -> String { folder(table) + "/stamp" }
    static func bucketFile(_ table: String, _ name: String) -> String { folder(table) + "/" + name }

    /// Byte order of UTF-8, which is the order of Unicode scalars (`ShortIDs` sorts so too).
    static func precedes(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    // MARK: Files

    /// `["<name> <bound>", …]`: one short line each when pretty-printed.
    static func directoryJSON(_ buckets: [(name: String, bound: String)]) -> JSONValue {
        ["buckets": .array(buckets.map { .string($0.name + " " + $0.bound) })]
    }

    /// `["<key> <number>", …]` (`-` for none): keys hold no control characters, but may hold
    /// spaces, so the number is after the last space.
    static func bucketJSON(_ entries: [Entry]) -> JSONValue {
        ["ids": .array(entries.map { .string($0.key + " " + ($0.number.map(String.init) ?? "-")) })]
    }

    /// The buckets in order; nil when the file is missing or damaged.
    static func buckets(_ table: String, in store: Store) -> BucketDirectory? {
        if let known = store.idIndexMemo[table]?.buckets { return known }
        let found = readBuckets(table, in: store)
        store.idIndexMemo[table]?.buckets = found
        return found
    }

    static func readBuckets(_ table: String, in store: Store) -> BucketDirectory? {
        guard let bytes = (try? store.fs.readFile(store.layout.absolute(directoryFile(table)))) ?? nil else { return nil }
        if let scanned = DirectoryScan.directory(bytes) { return scanned }
        guard case .object(let object)? = try? JSONValue.parse(bytes), let list = object["buckets"]?.arrayValue,
              !list.isEmpty else { return nil }
        var result: [(name: String, bound: String)] = []
        for entry in list {
            guard let text = entry.stringValue, let space = text.firstIndex(of: " ") else { return nil }
            let name = String(text[..<space]), bound = String(text[text.index(after: space)...])
            guard UInt32(name) != nil, result.last.map({ precedes($0.bound, bound) }) ?? bound.isEmpty else { return nil }
            result.append((name, bound))
        }
        return BucketDirectory(result)
    }

    /// A bucket's entries; [] when it has no file, nil when it is damaged or out of order.
    static func entries(_ table: String, _ name: String, in store: Store) -> [Entry]? {
        if let known = store.idIndexMemo[table]?.entries[name] { return known }
        let found = readEntries(table, name, in: store)
        store.idIndexMemo[table]?.entries[name] = found
        return found
    }

    /// Not memoised: `NumberedIDs` reads every bucket once, which the memo must not keep.
    static func readEntries(_ table: String, _ name: String, in store: Store) -> [Entry]? {
        let path = bucketFile(table, name)
        guard let bytes = (try? store.fs.readFile(store.layout.absolute(path))) ?? nil else {
            return store.fs.fileExists(store.layout.absolute(path)) ? nil : []
        }
        if let scanned = BucketScan.entries(bytes) {
            return scanned.map { Entry(key: String(decoding: bytes[$0.key], as: UTF8.self), number: $0.number) }
        }
        guard case .object(let object)? = try? JSONValue.parse(bytes), let list = object["ids"]?.arrayValue else { return nil }
        var result: [Entry] = []
        result.reserveCapacity(list.count)
        for item in list {
            guard let text = item.stringValue, let space = text.lastIndex(of: " ") else { return nil }
            let key = String(text[..<space]), tail = text[text.index(after: space)...]
            var number: Int?
            if tail != "-" {
                guard let n = ItemNumbers.parse(String(tail)) else { return nil }
                number = n
            }
            if let last = result.last, !precedes(last.key, key) { return nil }
            result.append(Entry(key: key, number: number))
        }
        return result
    }

    /// The index of the bucket that holds `key`: the last whose bound is not after it.
    static func position(of key: String, in buckets: [(name: String, bound: String)]) -> Int {
        var low = 0, high = buckets.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if precedes(key, buckets[mid].bound) { high = mid - 1 } else { low = mid }
        }
        return low
    }

    /// The first entry not before `key`.
    static func insertionPoint(of key: String, in entries: [Entry]) -> Int {
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if precedes(entries[mid].key, key) { low = mid + 1 } else { high = mid }
        }
        return low
    }

    // MARK: Trust

    /// The stamps the index must carry: the items folder's and the numbers folder's (absent: 0).
    static func currentStamps(_ table: String, in store: Store) -> (items: FileStamp, numbers: FileStamp?)? {
        guard let items = store.fs.directoryStamp(store.layout.absolute(store.layout.itemsDirectory(table))) else { return nil }
        return (items, store.fs.directoryStamp(store.layout.absolute(ItemNumbers.folder(store.layout, table))))
    }

    static func stampText(items: FileStamp, numbers: FileStamp?) -> [UInt8] {
        func line(_ name: String, _ s: FileStamp?) -> String {
            guard let s else { return "\(name) none\n" }
            return "\(name) \(s.inode) \(s.size) \(s.modified) \(s.changed)\n"
        }
        return Array((stampHeader + "\n" + line("items", items) + line("numbers", numbers)).utf8)
    }

    /// True while the index of `table` vouches for its folders as they are now. Not while a
    /// journal is on disk (a reader then sees changes the files do not have yet), unless the
    /// journal is the caller's own (`ownJournal`: a writer between the commits of a series).
    static func isVouched(_ table: String, in store: Store, ownJournal: Bool = false) -> Bool {
        guard ownJournal || !store.fs.fileExists(store.layout.absolute(StoreLayout.journalFile)),
              let now = currentStamps(table, in: store),
              let bytes = (try? store.fs.readFile(store.layout.absolute(stampFile(table)))) ?? nil
        else { return false }
        guard bytes == stampText(items: now.items, numbers: now.numbers) else { return false }
        if store.idIndexMemo[table]?.stamp != bytes { store.idIndexMemo[table] = Memo(stamp: bytes) }
        return true
    }

    /// What one command has read of a table's index, while the stamp it was read under is the
    /// one on disk: a command looks ids up two or three times, and at 1,000,000 items the
    /// directory alone is 90 KB to parse. A commit that keeps the index records a new stamp,
    /// which drops the memo at the next lookup.
    struct Memo {
        var stamp: [UInt8]
        var buckets: BucketDirectory??
        var entries: [String: [Entry]?] = [:]
        init(stamp: [UInt8]) { self.stamp = stamp }
    }

    // MARK: Lookups

    /// The entry of `key` (if any) and its neighbours in key order, or nil when the index does
    /// not vouch for the folders (or is damaged): the caller lists the items folder instead.
    static func neighbours(of key: String, table: String, in store: Store) -> (found: Entry?, before: Entry?, after: Entry?)? {
        guard isVouched(table, in: store), let buckets = buckets(table, in: store) else { return nil }
        let home = buckets.position(of: key)
        guard let entries = entries(table, buckets[home].name, in: store) else { return nil }
        let point = insertionPoint(of: key, in: entries)
        let found = point < entries.count && entries[point].key == key ? entries[point] : nil
        var before = point > 0 ? entries[point - 1] : nil
        var after = point + (found == nil ? 0 : 1) < entries.count ? entries[point + (found == nil ? 0 : 1)] : nil
        var i = home - 1
        while before == nil && i >= 0 {
            guard let other = self.entries(table, buckets[i].name, in: store) else { return nil }
            before = other.last
            i -= 1
        }
        i = home + 1
        while after == nil && i < buckets.count {
            guard let other = self.entries(table, buckets[i].name, in: store) else { return nil }
            after = other.first
            i += 1
        }
        return (found, before, after)
    }

    /// The entries whose keys start with `prefix` (a key), in order; nil as for `neighbours`.
    /// Reads the bucket where the prefix would sort, then the next ones while their bounds
    /// still start with it.
    static func entries(withPrefix prefix: String, table: String, in store: Store) -> [Entry]? {
        guard isVouched(table, in: store), let buckets = buckets(table, in: store) else { return nil }
        var found: [Entry] = []
        let home = buckets.position(of: prefix)
        for i in home..<buckets.count {
            if i > home && !startsWith(buckets[i].bound, prefix) { break }
            guard let entries = entries(table, buckets[i].name, in: store) else { return nil }
            found += entries[insertionPoint(of: prefix, in: entries)...].prefix { startsWith($0.key, prefix) }
        }
        return found
    }

    /// A prefix in UTF-8 bytes (the index's order), not in Characters.
    static func startsWith(_ s: String, _ prefix: String) -> Bool { s.utf8.starts(with: prefix.utf8) }
}
