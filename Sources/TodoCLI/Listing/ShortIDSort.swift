import TodoBasics
import TodoModel

/// Short ids and numbers for rows of a stream, without holding every id of a table (`ShortIDs`
/// holds them all: 100 MB at a million). Rows, keyed by table and id, the bare ids of everything
/// else a table knows and the numbers of the numbers files go through a sort by id
/// (`RunSorter`); its merge gives each id the shortest prefix its two neighbours in the same
/// table do not share (at least `ShortIDs.minimum` characters), as `ShortIDs` does, and its
/// number, and hands each row on with them.
final class ShortIDSort {
    private let sorter: RunSorter

    init(budget: Int, folders: [String]) {
        sorter = RunSorter(budget: budget, folders: folders)
    }

    var runsWritten: Int { sorter.runsWritten }
    var peakRecords: Int { sorter.peakRecords }

    /// A row for the id `key` (`ItemID.key`) of `table`.
    func add(table: String, key: String, row: [UInt8]) throws(FileSystemError) {
        try sorter.add(key: Self.sortKey(table, key), payload: [1] + row)
    }

    /// An id the table knows, with no row: it only shapes its neighbours' short ids.
    func addKnown(table: String, key: String) throws(FileSystemError) {
        try sorter.add(key: Self.sortKey(table, key), payload: [])
    }

    /// The number of the id `key` (`ItemNumbers`); an id given several keeps the largest.
    func addNumber(table: String, key: String, number: Int) throws(FileSystemError) {
        var payload: [UInt8] = [2]
        ListOrder.integer(UInt64(number), into: &payload)
        try sorter.add(key: Self.sortKey(table, key), payload: payload)
    }

    /// Every row in id order with how many characters of its id to show, how many of them are
    /// unique, its key and its number, while `body` returns true.
    func merge(_ body: (_ row: [UInt8], _ shown: Int, _ unique: Int, _ key: String, _ number: Int?) -> Bool) throws(FileSystemError) {
        var previous: (table: [UInt8], key: [Unicode.Scalar])? = nil
        var group: (table: [UInt8], key: [Unicode.Scalar], rows: [[UInt8]])? = nil
        var going = true
        func finish(next: (table: [UInt8], key: [Unicode.Scalar])?) {
            guard let g = group else { return }
            var shared = 0
            if let p = previous, p.table == g.table { shared = max(shared, Self.common(p.key, g.key)) }
            if let n = next, n.table == g.table { shared = max(shared, Self.common(g.key, n.key)) }
            let shown = min(g.key.count, max(ShortIDs.minimum, shared + 1))
            let unique = min(g.key.count, shared + 1)
            var number: Int?
            for record in g.rows where record.first == 2 && record.count == 9 {
                var n = 0
                for byte in record.dropFirst() { n = n << 8 | Int(byte) }
                number = max(number ?? 0, n)
            }
            let key = String(String.UnicodeScalarView(g.key))
            for row in g.rows where going && row.first == 1 { going = body(Array(row.dropFirst()), shown, unique, key, number) }
            previous = (g.table, g.key)
        }
        try sorter.sorted { record in
            let split = record.key.firstIndex(of: 0) ?? record.key.count
            let table = Array(record.key[..<split])
            let key = Array(String(decoding: record.key[min(split + 1, record.key.count)...], as: UTF8.self).unicodeScalars)
            if let g = group, g.table == table, g.key == key {
                group!.rows.append(record.payload)
                return true
            }
            finish(next: (table, key))
            group = (table, key, [record.payload])
            return going
        }
        if going { finish(next: nil) }
    }

    /// The short form of `id` given the length `merge` found: in the id's own spelling when
    /// lower-casing kept its length (as `ShortIDs.of`).
    static func shortID(_ id: String, shown: Int) -> String {
        let key = ItemID.key(id)
        let spelled = key.unicodeScalars.count == id.unicodeScalars.count ? id : key
        return String(String.UnicodeScalarView(spelled.unicodeScalars.prefix(shown)))
    }

    private static func sortKey(_ table: String, _ key: String) -> [UInt8] {
        Array(table.utf8) + [0] + Array(key.utf8)
    }

    private static func common(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        var n = 0
        while n < a.count && n < b.count && a[n] == b[n] { n += 1 }
        return n
    }
}
