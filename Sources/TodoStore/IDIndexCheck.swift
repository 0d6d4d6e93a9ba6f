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

    static func check(_ store: Store, tables: [String]) -> [(String, String)] {
        var figures = CheckFigures()
        return check(store, tables: tables, figures: &figures)
    }

    /// Where an index that vouches for a table's folders disagrees with them (a damaged file, a
    /// key it misses or lists in vain, a wrong number), as (path, message); then a writer
    /// rebuilds an index that is wrong or stale. A stale one is no finding.
    static func check(_ store: Store, tables: [String], figures: inout CheckFigures) -> [(String, String)] {
        var findings: [(String, String)] = []
        for table in tables {
            guard isVouched(table, in: store) else {
                rebuild(table, store)
                continue
            }
            let sorter = RunSorter(budget: store.idIndexSortBudget, folders: store.scratchFolders(environment: [:]))
            do { try feed(sorter, table, store) } catch { continue }  // the records' own problems are reported
            let outcome = store.isWritable ? "rebuilt from the item files" : "todo lists the items folder instead until it can write it and rebuild this"
            var found: [(String, String)] = []
            var differences: [(String, String)] = []
            let buckets = buckets(table, in: store)
            if buckets == nil {
                found.append((directoryFile(table), "damaged or missing: not {\"buckets\": [\"<name> <first id>\", ...]}; \(outcome)"))
            }
            var walk = BucketWalk(table: table, buckets: buckets ?? [], store: store, outcome: outcome)
            func vain(_ at: (entry: Entry, path: String)) {
                differences.append((at.path, "the index of ids lists \"\(at.entry.key)\", which has no item file; \(outcome)"))
            }
            /// One id of the folders with its number: the index's entries before it are listed in vain.
            func compare(_ key: String, _ number: Int?) {
                while let at = walk.peek(&found), precedes(at.entry.key, key) {
                    vain(at)
                    walk.advance()
                }
                guard let at = walk.peek(&found), at.entry.key == key else {
                    differences.append((folder(table), "the index of ids misses \"\(key)\" (an item file added by hand while todo wrote?); \(outcome)"))
                    return
                }
                if at.entry.number != number {
                    differences.append((at.path, "the index of ids gives \"\(key)\" number \(at.entry.number.map(String.init) ?? "none"), "
                                        + "not \(number.map(String.init) ?? "none"); \(outcome)"))
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
        let outcome: String
        var index = -1
        var entries: [Entry] = []
        var at = 0
        var largest = 0

        mutating func peek(_ found: inout [(String, String)]) -> (entry: Entry, path: String)? {
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
                    found.append((path, "damaged: not {\"ids\": [\"<id> <number>\", ...]} in id order; \(outcome)"))
                    continue
                }
                largest = max(largest, read.count)
                let bound = buckets[index].bound, limit = index + 1 < buckets.count ? buckets[index + 1].bound : nil
                for entry in read where precedes(entry.key, bound) || limit.map({ !precedes(entry.key, $0) }) == true {
                    found.append((path, "holds \"\(entry.key)\" outside its range; \(outcome)"))
                }
                entries = read
            }
            return (entries[at], bucketFile(table, buckets[index].name))
        }

        mutating func advance() { at += 1 }
    }
}
