import TodoBasics
import TodoModel

/// `todo doctor`'s check of the index of ids (`IDIndex`) against the folders, in bounded memory:
/// the folders' ids go through the external sort a rebuild uses (`feed`), and its merge is
/// compared with the index's buckets read one at a time, both in key order. No map of every id
/// is built (issue 21: a million ids would not fit the 64 MB a command may use).
extension IDIndex {
    /// What a check held at most, and the runs its sort spilled (for the tests).
    struct CheckFigures {
        var ids = 0
        var runs = 0
    }

    static func check(_ store: Store, tables: [String]) -> [(String, DoctorFinding)] {
        var figures = CheckFigures()
        return check(store, tables: tables, figures: &figures)
    }

    /// Where an index that vouches for a table's folders disagrees with them (a damaged file, a
    /// key it misses or lists in vain, a wrong number), as (path, message); then a writer
    /// rebuilds an index that is wrong or stale. A stale one is no finding.
    static func check(_ store: Store, tables: [String], figures: inout CheckFigures) -> [(String, DoctorFinding)] {
        var findings: [(String, DoctorFinding)] = []
        for table in tables {
            guard isVouched(table, in: store) else {
                rebuild(table, store)
                continue
            }
            let sorter = RunSorter(budget: store.idIndexSortBudget, folders: store.scratchFolders(environment: [:]))
            do { try feed(sorter, table, store) } catch { continue }  // the records' own problems are reported
            let rebuilt = store.isWritable
            func finding(_ f: DoctorFinding.IDIndexFinding) -> DoctorFinding { .idIndex(f, rebuilt: rebuilt) }
            var found: [(String, DoctorFinding)] = []
            var differences: [(String, DoctorFinding)] = []
            let buckets = buckets(table, in: store)
            if buckets == nil {
                found.append((directoryFile(table), finding(.directoryDamaged)))
            }
            var walk = BucketWalk(table: table, buckets: buckets.map(Array.init) ?? [], store: store, rebuilt: rebuilt)
            func vain(_ at: (entry: Entry, path: String)) {
                differences.append((at.path, finding(.listsWithoutItemFile(key: at.entry.key))))
            }
            /// One id of the folders with its number: the index's entries before it are listed in vain.
            func compare(_ key: String, _ number: Int?) {
                while let at = walk.peek(&found), precedes(at.entry.key, key) {
                    vain(at)
                    walk.advance()
                }
                guard let at = walk.peek(&found), at.entry.key == key else {
                    differences.append((folder(table), finding(.misses(key: key))))
                    return
                }
                if at.entry.number != number {
                    differences.append((at.path, finding(.wrongNumber(key: key, indexed: at.entry.number, actual: number))))
                }
                walk.advance()
            }
            do {
                try forEachFileID(in: sorter) { key, number in
                    compare(key, number)
                    return true
                }
            } catch {
                continue
            }
            while let at = walk.peek(&found) {
                vain(at)
                walk.advance()
            }
            figures.ids = max(figures.ids, sorter.peakRecords + walk.largest)
            figures.runs += sorter.runsWritten
            if found.isEmpty { found = differences }
            if !found.isEmpty { rebuild(table, store) }
            findings += found
        }
        return findings
    }

    /// The entries of an index in key order, one bucket in memory at a time. A damaged bucket
    /// and an entry outside its bucket's range are findings (then the order is not trusted).
    private struct BucketWalk {
        let table: String
        let buckets: [(name: String, bound: String)]
        let store: Store
        let rebuilt: Bool
        var index = -1
        var entries: [Entry] = []
        var at = 0
        var largest = 0

        mutating func peek(_ found: inout [(String, DoctorFinding)]) -> (entry: Entry, path: String)? {
            while at >= entries.count {
                index += 1
                at = 0
                entries = []
                guard index < buckets.count else {
                    index = buckets.count
                    return nil
                }
                let path = bucketFile(table, buckets[index].name)
                guard let read = readEntries(table, buckets[index].name, in: store) else {
                    found.append((path, .idIndex(.bucketDamaged, rebuilt: rebuilt)))
                    continue
                }
                largest = max(largest, read.count)
                let bound = buckets[index].bound, limit = index + 1 < buckets.count ? buckets[index + 1].bound : nil
                for entry in read where precedes(entry.key, bound) || limit.map({ !precedes(entry.key, $0) }) == true {
                    found.append((path, .idIndex(.outsideRange(key: entry.key), rebuilt: rebuilt)))
                }
                entries = read
            }
            return (entries[at], bucketFile(table, buckets[index].name))
        }

        mutating func advance() { at += 1 }
    }
}
