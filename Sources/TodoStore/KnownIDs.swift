import TodoModel

/// Every id a table knows, for short ids: its items, its pending operations (an item deleted
/// here lives on in its delete) and its open conflicts.
extension Store {
    /// The ids' comparison keys (lower-cased), read from file names; only the rare hashed name
    /// (an id longer than 90 bytes) opens its file. Of the pending operations only those of ids
    /// without an item file count (the others' ids are the items'): pending deletes, which the
    /// index of pending operations lists apart (`PendingIndex`), so the queue is not listed.
    public func knownIDKeys(table: String) throws(StoreError) -> Set<String> {
        var keys: Set<String> = []
        let dir = layout.itemsDirectory(table)
        for name in try list(dir) where name.hasSuffix(".json") {
            let encoded = String(name.dropLast(5))
            if let key = IDEncoding.decode(encoded) {
                keys.insert(key)
            } else if let file = try decodeItemFile(dir + "/" + name) {
                keys.insert(ItemID.key(file.item.id))
            }
        }
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
            } else if let c = try decode(StoreLayout.conflictsDirectory + "/\(name.table).\(name.encodedID).json", Conflict.init(json:)) {
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
