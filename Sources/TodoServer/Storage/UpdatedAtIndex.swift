/// The live rows of a table in (updatedAt, id) order: the index behind the incremental pull (§8.12).
///
/// A sorted list split into chunks of at most `chunkCapacity` rows. Why chunks rather than one
/// array with lazily skipped stale entries: an update must take its row out of its old position, and
/// removing from one chunk moves at most a chunk's worth of entries, while a query never walks over
/// dead entries, so a page costs O(log n + rows examined) however the table was written. Why not a
/// tree: updatedAt is strictly increasing within a table, so nearly every insert is an append to the
/// last chunk, and a flat list of chunks is simpler and faster for that shape.
///
/// A value type whose chunks are copy-on-write: a copy (compaction's snapshot) costs O(chunks), and
/// a later change to the original copies only the chunk it touches.
struct UpdatedAtIndex: Sendable {
    static let chunkCapacity = 512

    private var chunks: [[StoredRow]] = []
    private(set) var count = 0

    init() {}

    /// Adds a row; it must not be in the index already (same id key and updatedAt).
    mutating func insert(_ row: StoredRow) {
        count += 1
        guard let lastChunk = chunks.last, let last = lastChunk.last else {
            chunks = [[row]]
            return
        }
        if last.precedesInUpdateOrder(row) {
            // The common case: a fresh stamp is later than everything in the table.
            if lastChunk.count < Self.chunkCapacity {
                chunks[chunks.count - 1].append(row)
            } else {
                chunks.append([row])
            }
            return
        }
        let c = chunkIndex(forInsertOf: row)
        let position = Self.firstIndex(in: chunks[c]) { !$0.precedesInUpdateOrder(row) }
        chunks[c].insert(row, at: position)
        if chunks[c].count > Self.chunkCapacity {
            let upper = Array(chunks[c][(Self.chunkCapacity / 2)...])
            chunks[c].removeSubrange((Self.chunkCapacity / 2)...)
            chunks.insert(upper, at: c + 1)
        }
    }

    /// Removes the entry of `row` (found by its updatedAt and id). Returns false when it is not there.
    @discardableResult
    mutating func remove(_ row: StoredRow) -> Bool {
        guard !chunks.isEmpty else { return false }
        let c = chunkIndex(forInsertOf: row)
        guard c < chunks.count else { return false }
        let position = Self.firstIndex(in: chunks[c]) { !$0.precedesInUpdateOrder(row) }
        guard position < chunks[c].count, chunks[c][position].updatedAt == row.updatedAt,
              chunks[c][position].id.scalarEquals(row.id)
        else { return false }
        chunks[c].remove(at: position)
        if chunks[c].isEmpty { chunks.remove(at: c) }
        count -= 1
        return true
    }

    /// Visits rows in order starting with the first whose updatedAt is > `after` (>= when
    /// `inclusive`; every row when `after` is nil) until `visit` returns false. Returns the number of
    /// entries visited, so tests can check that a page costs what it returns, not what the table holds.
    @discardableResult
    func scan(after: Int64?, inclusive: Bool, _ visit: (StoredRow) -> Bool) -> Int {
        var c = 0, position = 0
        if let after {
            let starts: (StoredRow) -> Bool = inclusive ? { $0.updatedAt >= after } : { $0.updatedAt > after }
            c = Self.firstIndex(in: chunks) { starts($0[$0.count - 1]) }
            if c < chunks.count { position = Self.firstIndex(in: chunks[c], where: starts) }
        }
        var visited = 0
        while c < chunks.count {
            let chunk = chunks[c]
            while position < chunk.count {
                visited += 1
                if !visit(chunk[position]) { return visited }
                position += 1
            }
            c += 1
            position = 0
        }
        return visited
    }

    /// Every row, in order.
    func allRows() -> [StoredRow] {
        var result: [StoredRow] = []
        result.reserveCapacity(count)
        for chunk in chunks { result.append(contentsOf: chunk) }
        return result
    }

    /// The chunk that holds `row`'s position: the first whose last row is not before it, or the last
    /// chunk when `row` is after everything.
    private func chunkIndex(forInsertOf row: StoredRow) -> Int {
        let c = Self.firstIndex(in: chunks) { !$0[$0.count - 1].precedesInUpdateOrder(row) }
        return min(c, chunks.count - 1)
    }

    /// Binary search: the first index whose element satisfies `predicate`, for a predicate that is
    /// false and then true along the collection.
    private static func firstIndex<Element>(in elements: [Element], where predicate: (Element) -> Bool) -> Int {
        var low = 0, high = elements.count
        while low < high {
            let mid = (low + high) / 2
            if predicate(elements[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
