import Testing
import TodoBasics
@testable import TodoServer

@Suite struct IDOrderIndexTests {
    @Test func matchesASortedArrayUnderRandomInsertsAndRemovals() {
        var rng = SplitMix64(seed: 11)
        var index = IDOrderIndex()
        var reference = Set<String>()
        for step in 0..<20_000 {
            let id = "id\(rng.next() % 5_000)" + (rng.next() % 3 == 0 ? "É" : "")
            if rng.next() % 4 == 0 {
                index.remove(id)
                reference.remove(id)
            } else {
                index.insert(id, key: StoredRowKey(id: id))
                reference.insert(id)
            }
            if step % 2_000 == 0 || step == 19_999 {
                var seen: [String] = []
                index.forEach { id, _ in seen.append(id); return true }
                #expect(seen == reference.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
                #expect(index.count == reference.count)
            }
        }
        #expect(index.chunks.count > 2, "chunks were split")
    }

    @Test func storageVisitsRowsInIDOrderAndStops() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let storage = try dir.open()
        try storage.createTable("t", softDelete: true)
        for id in ["b", "a", "C", "é", "ab"] {
            try storage.write("t") { w in
                let s = w.nextStamp()
                w.put(StoredRow(id: id, columns: [:], createdAt: s.updatedAt, updatedAt: s.updatedAt, version: s.version, deleted: false))
            }
        }
        #expect(try storage.rowsInIDOrder("t").map(\.id) == ["C", "a", "ab", "b", "é"])
        #expect(try storage.rowsInIDOrder("t", limit: 2).map(\.id) == ["C", "a"])
    }
}
