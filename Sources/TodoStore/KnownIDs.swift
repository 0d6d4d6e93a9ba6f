import TodoModel

/// Every id a table knows, for short ids: its items, its pending operations (an item deleted
/// here lives on in its delete) and its open conflicts.
extension Store {
    /// The ids' comparison keys (lower-cased), read from file names; only the rare hashed name
    /// (an id longer than 90 bytes) opens its file. Of the pending operations only those of ids
    /// without an item file count (the others' ids are the items'): pending deletes, which the
    /// index of pending operations lists apart (`PendingIndex`), so the queue is not listed.
    public func knownIDKeys(table: String) throws(StoreError) -> Set<String> {
        var keys = try knownIDKeysWithoutItems(table: table)
        let dir = layout.itemsDirectory(table)
        for name in try list(dir) where name.hasSuffix(".json") {
            let encoded = String(name.dropLast(5))
            if let key = IDEncoding.decode(encoded) {
                keys.insert(key)
            } else if let file = try decodeItemFile(dir + "/" + name) {
                keys.insert(ItemID.key(file.item.id))
            }
        }
        return keys
    }

    /// The same keys one at a time (some twice), without holding them: the items folder is
    /// walked, not listed.
    public func forEachKnownIDKey(table: String, _ body: (String) throws(StoreError) -> Void) throws(StoreError) {
        try forEachItemKeyOnDisk(table: table, body)
        try forEachKnownIDKeyWithoutItems(table: table, body)
    }

    /// The known key other than `key` that shares the longest prefix with it: all the short id of
    /// one item needs (`ShortIDs`). From the index of ids while it vouches for the items folder
    /// (`IDIndex`: the key's neighbours in sorted order, O(1) file reads); else from one pass over
    /// the folder's names, without sorting every id of the table (1 s at 100,000 items), after
    /// which a local change rebuilds the index. Nil when the table knows no other id.
    public func closestKnownIDKey(to key: String, table: String) throws(StoreError) -> String? {
        var best: (length: Int, key: String)?
        func consider(_ other: String) {
            guard other != key else { return }
            let shared = Self.commonPrefix(key.unicodeScalars, other.unicodeScalars)
            if best == nil || shared > best!.length { best = (shared, other) }
        }
        if let indexed = IDIndex.neighbours(of: key, table: table, in: self)
            ?? (isWritable && keepsPendingIndex && IDIndex.rebuild(table, self) ? IDIndex.neighbours(of: key, table: table, in: self) : nil) {
            for entry in [indexed.before, indexed.after] { if let entry { consider(entry.key) } }
            try forEachKnownIDKeyWithoutItems(table: table) { consider($0) }
            return best?.key
        }
        let target = Array(key.utf8)
        let dir = layout.itemsDirectory(table)
        // Walked, not listed: a listing of a million names held 80 MB (issue 21).
        var hashed: [String] = []
        try scanItemFileNames(table: table) { name throws(StoreError) in
            // Plain names (no `%`, no `~`: most ids) are their key: compared as bytes, which for
            // ASCII names counts the same shared prefix as scalars do.
            var plain = true
            var shared = 0
            var counting = true
            var length = 0
            for byte in name.utf8.dropLast(5) {
                if byte == UInt8(ascii: "%") || byte == UInt8(ascii: "~") { plain = false; break }
                if counting, length < target.count, target[length] == byte { shared += 1 } else { counting = false }
                length += 1
            }
            if plain {
                if length == target.count && shared == length { return true }  // the key itself
                if best == nil || shared > best!.length { best = (shared, String(name.dropLast(5))) }
            } else if let decoded = IDEncoding.decode(String(name.dropLast(5))) {
                consider(decoded)
            } else {
                hashed.append(name)
            }
            return true
        }
        for name in hashed { if let file = try decodeItemFile(dir + "/" + name) { consider(ItemID.key(file.item.id)) } }
        try forEachKnownIDKeyWithoutItems(table: table) { consider($0) }
        return best?.key
    }

    /// The known keys that start with `prefix` (a key; compared as UTF-8 bytes), sorted: from
    /// the index of ids while it vouches for the items folder, else from every known key.
    public func knownIDKeys(table: String, prefix: String) throws(StoreError) -> [String] {
        var keys: Set<String>
        if let indexed = IDIndex.entries(withPrefix: prefix, table: table, in: self)
            ?? (isWritable && keepsPendingIndex && IDIndex.rebuild(table, self) ? IDIndex.entries(withPrefix: prefix, table: table, in: self) : nil) {
            keys = Set(indexed.map(\.key)).union(try knownIDKeysWithoutItems(table: table))
        } else {
            // Walked, keeping the keys with the prefix: a set of every key held 100 MB at a million.
            keys = []
            try forEachKnownIDKey(table: table) { if IDIndex.startsWith($0, prefix) { keys.insert($0) } }
        }
        return keys.filter { IDIndex.startsWith($0, prefix) }.sorted(by: IDIndex.precedes)
    }

    /// How many Unicode scalars two ids share at their start (short ids count in scalars).
    static func commonPrefix(_ a: String.UnicodeScalarView, _ b: String.UnicodeScalarView) -> Int {
        var n = 0
        for (x, y) in zip(a, b) {
            guard x == y else { break }
            n += 1
        }
        return n
    }

    /// The keys of a table's pending deletes (ids without an item file) and open conflicts.
    public func knownIDKeysWithoutItems(table: String) throws(StoreError) -> Set<String> {
        var keys: Set<String> = []
        try forEachKnownIDKeyWithoutItems(table: table) { keys.insert($0) }
        return keys
    }

    /// The same keys one at a time (some twice), without holding them: with an index of pending
    /// operations that does not vouch for the folder, every operation's, as the folder is walked
    /// (a listing and a set of a million keys held 170 MB: `show` before any index, issue 21).
    public func forEachKnownIDKeyWithoutItems(table: String, _ body: (String) throws(StoreError) -> Void) throws(StoreError) {
        func key(_ name: OperationFileName) throws(StoreError) {
            guard name.table == table else { return }
            if let key = IDEncoding.decode(name.encodedID) {
                try body(key)
            } else if let op = try operation(name) {
                try body(ItemID.key(op.id))
            }
        }
        if PendingIndex.vouchedStamp(self) != nil, let deletes = PendingIndex.names(PendingIndex.deletesFile, in: self) {
            for name in deletes.compactMap(OperationFileName.init(parsing:)) { try key(name) }
        } else {
            try forEachOperationName(key)
        }
        try forEachConflictIDKey(table: table, body)
    }

    /// The keys of a table's item files and open conflicts one at a time (some twice), without
    /// holding them: with its pending operations' keys, every id it knows. For `status`, which
    /// walks the queue itself (`knownIDKeysWithoutItems` lists it whole when the index is stale).
    public func forEachItemOrConflictIDKey(table: String, _ body: (String) throws(StoreError) -> Void) throws(StoreError) {
        try forEachItemKeyOnDisk(table: table, body)
        try forEachConflictIDKey(table: table, body)
    }

    private func forEachConflictIDKey(table: String, _ body: (String) throws(StoreError) -> Void) throws(StoreError) {
        for name in try conflictNames() where name.table == table {
            if let key = IDEncoding.decode(name.encodedID) {
                try body(key)
            } else if let c = try read(StoreLayout.conflictsDirectory + "/\(name.table).\(name.encodedID).json", as: ConflictFile.self) {
                try body(ItemID.key(c.id))
            }
        }
    }
}

extension Store {
    /// Whether the index of ids of `table` vouches for its folders as they are now.
    public func idIndexVouches(table: String) -> Bool { IDIndex.isVouched(table, in: self) }

    /// For each of `keys` (ids' keys the table knows), the longest prefix, in Unicode scalars, it
    /// shares with another id the table knows: all a short id needs. From the index of ids while
    /// it vouches for the table (nil otherwise): the keys are sorted and each bucket they fall in
    /// is read once, one at a time, with a neighbour across a bucket's edge, so a `log` of three
    /// operations in a table of a million items reads a few buckets instead of sorting every id.
    public func sharedPrefixLengths(of keys: Set<String>, table: String) throws(StoreError) -> [String: Int]? {
        guard IDIndex.isVouched(table, in: self), let buckets = IDIndex.buckets(table, in: self) else { return nil }
        let extra = try knownIDKeysWithoutItems(table: table).sorted(by: IDIndex.precedes)
        let extraEntries = extra.map { IDIndex.Entry(key: $0, number: nil) }
        var result: [String: Int] = [:]
        var loaded: (index: Int, entries: [IDIndex.Entry])?
        func entries(_ i: Int) -> [IDIndex.Entry]? {
            if let loaded, loaded.index == i { return loaded.entries }
            guard let read = IDIndex.readEntries(table, buckets[i].name, in: self) else { return nil }
            loaded = (i, read)
            return read
        }
        /// The nearest key before (or after) bucket `i`, walking over emptied buckets.
        func edge(from i: Int, step: Int) -> String?? {
            var j = i
            while j >= 0 && j < buckets.count {
                guard let found = IDIndex.readEntries(table, buckets[j].name, in: self) else { return .some(nil) }
                if let key = step < 0 ? found.last?.key : found.first?.key { return key }
                j += step
            }
            return .some(nil)
        }
        for key in keys.sorted(by: IDIndex.precedes) {
            let home = buckets.position(of: key)
            guard let list = entries(home) else { return nil }
            let point = IDIndex.insertionPoint(of: key, in: list)
            let found = point < list.count && list[point].key == key
            var neighbours: [String] = []
            if point > 0 { neighbours.append(list[point - 1].key) } else if case .some(let k?) = edge(from: home - 1, step: -1) { neighbours.append(k) }
            let next = point + (found ? 1 : 0)
            if next < list.count { neighbours.append(list[next].key) } else if case .some(let k?) = edge(from: home + 1, step: 1) { neighbours.append(k) }
            let at = IDIndex.insertionPoint(of: key, in: extraEntries)
            if at > 0 { neighbours.append(extra[at - 1]) }
            if at < extra.count { neighbours.append(extra[at] == key ? (at + 1 < extra.count ? extra[at + 1] : key) : extra[at]) }
            result[key] = neighbours.filter { $0 != key }.map { Self.commonPrefix(key.unicodeScalars, $0.unicodeScalars) }.max() ?? 0
        }
        return result
    }
}
