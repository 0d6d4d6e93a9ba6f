import Testing
import TodoBasics
import TodoModel
@testable import TodoServer

/// The chunked (updatedAt, id) index against a plain sorted array, over random inserts (in and out
/// of order), removals and scans.
@Suite struct UpdatedAtIndexTests {
    func row(_ id: String, _ updatedAt: Int64) -> StoredRow {
        StoredRow(id: id, columns: [:], createdAt: 0, updatedAt: updatedAt, version: 0)
    }

    @Test func matchesASortedArrayUnderRandomChanges() {
        var rng = SplitMix64(seed: 7)
        var index = UpdatedAtIndex()
        var model: [StoredRowKey: StoredRow] = [:]
        var clock: Int64 = 0
        for step in 0..<20_000 {
            let id = "id\(rng.next() % 3_000)"
            let choice = rng.next() % 10
            if let old = model[StoredRowKey(id: id)], choice < 3 {
                let removed = index.remove(old)
                #expect(removed)
                model[StoredRowKey(id: id)] = nil
            } else {
                if let old = model[StoredRowKey(id: id)] {
                    let removed = index.remove(old)
                    #expect(removed)
                }
                // Mostly fresh stamps (appends), sometimes an old time (an insert in the middle).
                let updatedAt: Int64
                if choice < 8 { clock += 1; updatedAt = clock } else { updatedAt = Int64(rng.next() % UInt64(clock + 1)) }
                let new = row(id, updatedAt)
                index.insert(new)
                model[StoredRowKey(id: id)] = new
            }
            if step % 1_000 == 999 {
                let sorted = model.values.sorted { $0.precedesInUpdateOrder($1) }
                #expect(index.allRows() == sorted)
                #expect(index.count == sorted.count)
                for _ in 0..<20 {
                    let after = Int64(rng.next() % UInt64(clock + 2)) - 1
                    let inclusive = rng.next() % 2 == 0
                    var seen: [StoredRow] = []
                    let visited = index.scan(after: after, inclusive: inclusive) { seen.append($0); return seen.count < 25 }
                    let expected = sorted.filter { inclusive ? $0.updatedAt >= after : $0.updatedAt > after }.prefix(25)
                    #expect(seen == Array(expected))
                    #expect(visited == seen.count)
                }
            }
        }
    }

    @Test func removingWhatIsNotThereChangesNothing() {
        var index = UpdatedAtIndex()
        let empty = index.remove(row("a", 1))
        index.insert(row("a", 1))
        index.insert(row("b", 1))
        let wrongTime = index.remove(row("a", 2)), wrongId = index.remove(row("c", 1)), right = index.remove(row("b", 1))
        #expect(!empty && !wrongTime && !wrongId && right)
        #expect(index.allRows() == [row("a", 1)])
    }
}
