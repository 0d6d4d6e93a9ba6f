import TodoBasics
import TodoModel

/// Keeping the index of ids (`IDIndex`) in step with the commits, rebuilding it, and checking it.
extension IDIndex {
    /// What a commit leaves in the index of a table it keeps: the directory if it changed, and
    /// the buckets it wrote. `restamp` turns it into the memo of the new stamp, so a lookup after
    /// the commit (the short id an edit prints) reads no file the commit has just written.
    struct Staged {
        var buckets: BucketDirectory?
        var entries: [String: [Entry]] = [:]
    }

    /// Stages the buckets a commit changes, for each table whose items it changes and whose index
    /// vouched for the folders before it; returns those tables (to `restamp` after the commit).
    /// Any other table's stamp is removed in the same commit: its index is stale from then on,
    /// even if the folders' times do not move (coarse clocks).
    static func stage(into tx: inout StoreTransaction, _ store: Store, _ changes: ItemFileChanges,
                      numbers: (given: [String: [String: Int]], firstNumbered: Set<String>)) -> [String: Staged] {
        var kept: [String: Staged] = [:]
        for table in changes.touched.sorted() {
            if !numbers.firstNumbered.contains(table),
               let staged = stage(table, into: &tx, store, added: changes.added[table] ?? [], removed: changes.removed[table] ?? [],
                                  numbers: numbers.given[table] ?? [:]) {
                kept[table] = staged
            } else {
                store.idIndexesLeftStale.insert(table)
                if store.fs.fileExists(store.layout.absolute(stampFile(table))) { tx.remove(stampFile(table)) }
            }
        }
        return kept
    }

    private static func stage(_ table: String, into tx: inout StoreTransaction, _ store: Store,
                              added: [String], removed: [String], numbers: [String: Int]) -> Staged? {
        guard isVouched(table, in: store, ownJournal: true) else { return nil }
        // Items only rewritten (edit, done): no key comes or goes, only the stamp moves.
        if added.isEmpty && removed.isEmpty { return Staged() }
        guard let buckets = buckets(table, in: store) else { return nil }
        var changed: [Int: [Entry]] = [:]
        for key in added + removed {
            let i = buckets.position(of: key)
            if changed[i] == nil {
                guard changed.count < stagedBucketLimit, let entries = entries(table, buckets[i].name, in: store) else { return nil }
                changed[i] = entries
            }
        }
        var staged = Staged()
        for key in removed {
            let i = buckets.position(of: key)
            let point = insertionPoint(of: key, in: changed[i]!)
            if point < changed[i]!.count && changed[i]![point].key == key { changed[i]!.remove(at: point) }
        }
        for key in added {
            let i = buckets.position(of: key)
            let point = insertionPoint(of: key, in: changed[i]!)
            let entry = Entry(key: key, number: numbers[key])
            if point < changed[i]!.count && changed[i]![point].key == key { changed[i]![point] = entry } else { changed[i]!.insert(entry, at: point) }
        }
        var nextName: UInt32?
        // A full bucket splits into pieces about half full (two, unless one commit filled it more).
        var splits: [(after: Int, pieces: [(name: String, bound: String)])] = []
        for (i, entries) in changed {
            let limit = store.idIndexBucketLimit
            guard entries.count > limit else {
                tx.put(bucketFile(table, buckets[i].name), bucketJSON(entries))
                staged.entries[buckets[i].name] = entries
                continue
            }
            let count = max(2, entries.count / max(1, limit / 2))
            var pieces: [(name: String, bound: String)] = []
            for k in 0..<count {
                let piece = Array(entries[(entries.count * k / count)..<(entries.count * (k + 1) / count)])
                var name = buckets[i].name
                if k > 0 {
                    let next = nextName ?? buckets.largestName + 1
                    name = String(next)
                    nextName = next + 1
                    pieces.append((name, piece[0].key))
                }
                tx.put(bucketFile(table, name), bucketJSON(piece))
                staged.entries[name] = piece
            }
            splits.append((i, pieces))
        }
        if !splits.isEmpty {
            var list = Array(buckets)
            for split in splits.sorted(by: { $0.after > $1.after }) { list.insert(contentsOf: split.pieces, at: split.after + 1) }
            tx.put(directoryFile(table), directoryJSON(list))
            staged.buckets = BucketDirectory(list)
        }
        return staged
    }

    /// Records the folders' stamps after a commit that kept the index of `tables` (best effort:
    /// without it the index is stale, and the next local change or `doctor` rebuilds it). What
    /// this command had read of the index, with what the commit wrote over it, is the memo of
    /// the new stamp.
    static func restamp(_ tables: [String: Staged], _ store: Store) {
        for (table, staged) in tables.sorted(by: { $0.key < $1.key }) {
            let before = store.idIndexMemo[table]
            store.idIndexMemo[table] = nil
            let path = store.layout.absolute(stampFile(table))
            guard let now = currentStamps(table, in: store) else { continue }
            let stamp = stampText(items: now.items, numbers: now.numbers)
            do {
                // Not fsynced (as `PendingIndex.restamp`): the buckets are durable, or held by the journal on disk
                // until they are; a stamp a crash loses or empties is stale, never wrong.
                try AtomicFile.write(stamp, to: path, in: store.fs, sync: false)
                var memo = Memo(stamp: stamp)
                memo.buckets = staged.buckets.map { .some($0) } ?? before?.buckets
                memo.entries = (before?.entries ?? [:]).merging(staged.entries.mapValues { .some($0) }) { $1 }
                store.idIndexMemo[table] = memo
            } catch {
                try? store.fs.removeFile(AtomicFile.tempPath(for: path))
                try? store.fs.removeFile(path)
            }
        }
    }
}
