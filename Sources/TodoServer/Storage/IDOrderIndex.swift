/// The ids of a table in `id asc` order (stored spelling, by Unicode scalars: protocol §4.2.5,
/// §8.8), so the default query order reads `$skip + $top` entries instead of sorting the table.
///
/// A sorted array of small sorted chunks: an insert costs a binary search plus a shift within
/// one chunk (at most `chunkLimit` entries), never a shift of the whole table, so replaying a log
/// of random UUIDs stays fast. Comparing UTF-8 bytes gives the same order as Unicode scalars
/// (see `UTF8Bytes`).
struct IDOrderIndex {
    static let chunkLimit = 512
    /// Each entry keeps the row's dictionary key too, so a walk never lower-cases an id again.
    private(set) var chunks: [[(id: String, key: StoredRowKey)]] = []
    private(set) var count = 0

    static func less(_ a: String, _ b: String) -> Bool { UTF8Bytes.less(a, b) }

    /// The chunk that holds `id`, or would: the first chunk whose last id is not below it.
    private func chunkIndex(for id: String) -> Int {
        var low = 0, high = chunks.count
        while low < high {
            let mid = (low + high) / 2
            if Self.less(chunks[mid].last!.id, id) { low = mid + 1 } else { high = mid }
        }
        return min(low, max(chunks.count - 1, 0))
    }

    private static func position(of id: String, in chunk: [(id: String, key: StoredRowKey)]) -> Int {
        var low = 0, high = chunk.count
        while low < high {
            let mid = (low + high) / 2
            if less(chunk[mid].id, id) { low = mid + 1 } else { high = mid }
        }
        return low
    }

    mutating func insert(_ id: String, key: StoredRowKey) {
        guard !chunks.isEmpty else { chunks = [[(id, key)]]; count = 1; return }
        let c = chunkIndex(for: id)
        let p = Self.position(of: id, in: chunks[c])
        if p < chunks[c].count, UTF8Bytes.equal(chunks[c][p].id, id) { return }
        chunks[c].insert((id, key), at: p)
        count += 1
        if chunks[c].count > 2 * Self.chunkLimit {
            let tail = Array(chunks[c][Self.chunkLimit...])
            chunks[c].removeLast(chunks[c].count - Self.chunkLimit)
            chunks.insert(tail, at: c + 1)
        }
    }

    mutating func remove(_ id: String) {
        guard !chunks.isEmpty else { return }
        let c = chunkIndex(for: id)
        let p = Self.position(of: id, in: chunks[c])
        guard p < chunks[c].count, UTF8Bytes.equal(chunks[c][p].id, id) else { return }
        chunks[c].remove(at: p)
        count -= 1
        if chunks[c].isEmpty { chunks.remove(at: c) }
    }

    /// Visits ids (and their keys) in order until `visit` returns false.
    func forEach(_ visit: (String, StoredRowKey) -> Bool) {
        for chunk in chunks {
            for entry in chunk where !visit(entry.id, entry.key) { return }
        }
    }
}
