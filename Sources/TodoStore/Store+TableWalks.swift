import TodoBasics
import TodoModel

/// What `purge` and `table rm` read of a table: the items with operations or conflicts in full,
/// the others a batch at a time (`purge`) or by name only (`table rm`), never the whole table at
/// once (issue 21).
extension Store {
    /// The items of these ids that have a file, hand edits refused or noted as for `items`: what
    /// `purge` and `table rm` need of the items with operations or conflicts (issue 21).
    public func items(table: String, ids: [String]) throws(StoreError) -> [Item] {
        var found: [Item] = []
        var seen: Set<String> = []
        for id in ids where seen.insert(ItemID.key(id)).inserted {
            guard let file = try itemFile(table: table, id: id) else { continue }
            try check(file, table: table)
            found.append(file.item)
        }
        return found
    }

    /// Every item of a table but those of `skipping` (ids), one at a time in batches
    /// (`forEachItemFile`), hand edits refused or noted as for `items`: `purge` of a million items.
    public func forEachItem(table: String, skipping ids: [String], _ body: (Item) throws(StoreError) -> Void) throws(StoreError) {
        let skipped = Set(ids.map { IDEncoding.fileName(for: $0) + ".json" }), keys = Set(ids.map(ItemID.key))
        // A hashed name may hold another id than the skipped one's: those are read, and told apart.
        try forEachItemFile(table: table, include: { IDEncoding.isHashed($0) || !skipped.contains($0) }) { file throws(StoreError) in
            if IDEncoding.isHashed(file.path.lastPathComponent), keys.contains(ItemID.key(file.item.id)) { return }
            try check(file, table: table)
            try body(file.item)
        }
    }

    /// The path of every item file of a table (relative to `.todo/`), as the folder is read,
    /// without opening one: `table rm` removes them all.
    public func forEachItemPath(table: String, _ body: (String) throws(StoreError) -> Void) throws(StoreError) {
        let dir = layout.itemsDirectory(table)
        try scanItemFileNames(table: table) { name throws(StoreError) in
            try body(dir + "/" + name)
            return true
        }
    }

    /// The one walk of an items folder that every table walk shares: each item file name
    /// (`<enc>.json`, leftovers of interrupted writes skipped) as the folder is read, without holding
    /// the listing. `body` returns whether to go on; its first error ends the walk and is rethrown.
    func scanItemFileNames(table: String, _ body: (String) throws(StoreError) -> Bool) throws(StoreError) {
        var failure: StoreError?
        do {
            _ = try fs.scanDirectory(layout.absolute(layout.itemsDirectory(table))) { name in
                guard name.hasSuffix(".json"), !StoreLayout.isLeftover(name) else { return true }
                do throws(StoreError) { return try body(name) } catch {
                    failure = error
                    return false
                }
            }
        } catch {
            throw .io(error)
        }
        if let failure { throw failure }
    }
}
