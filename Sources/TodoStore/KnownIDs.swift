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
        for key in try knownIDKeysWithoutItems(table: table) { try body(key) }
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
            for other in try knownIDKeysWithoutItems(table: table) { consider(other) }
            return best?.key
        }
        let target = Array(key.utf8)
        let dir = layout.itemsDirectory(table)
        for name in try list(dir) where name.hasSuffix(".json") {
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
                if length == target.count && shared == length { continue }  // the key itself
                if best == nil || shared > best!.length { best = (shared, String(name.dropLast(5))) }
            } else if let decoded = IDEncoding.decode(String(name.dropLast(5))) {
                consider(decoded)
            } else if let file = try decodeItemFile(dir + "/" + name) {
                consider(ItemID.key(file.item.id))
            }
        }
        for other in try knownIDKeysWithoutItems(table: table) { consider(other) }
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
            keys = try knownIDKeys(table: table)
        }
        return keys.filter { IDIndex.startsWith($0, prefix) }.sorted(by: IDIndex.precedes)
    }

    private static func commonPrefix(_ a: String.UnicodeScalarView, _ b: String.UnicodeScalarView) -> Int {
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
        for name in try operationNamesWithoutItemFiles() where name.table == table {
            if let key = IDEncoding.decode(name.encodedID) {
                keys.insert(key)
            } else if let op = try operation(name) {
                keys.insert(ItemID.key(op.id))
            }
        }
        for name in try conflictNames() where name.table == table {
            if let key = IDEncoding.decode(name.encodedID) {
                keys.insert(key)
            } else if let c = try read(StoreLayout.conflictsDirectory + "/\(name.table).\(name.encodedID).json", as: ConflictFile.self) {
                keys.insert(ItemID.key(c.id))
            }
        }
        return keys
    }

    /// The operations whose ids may have no item file: the pending deletes from the index while
    /// it vouches for the folder, else every operation (a listing).
    private func operationNamesWithoutItemFiles() throws(StoreError) -> [OperationFileName] {
        if PendingIndex.vouchedStamp(self) != nil, let deletes = PendingIndex.names(PendingIndex.deletesFile, in: self) {
            return deletes.compactMap(OperationFileName.init(parsing:))
        }
        return try operationNames()
    }
}
