import Testing
import TodoBasics
import TodoModel
import TodoTestSupport
@testable import TodoStore

/// Issue 21: the index of ids is rebuilt in bounded memory (an external sort of the item files'
/// and numbers files' ids), and a command rebuilds only the indexes its own commits left stale.
@Suite struct IDIndexRebuildTests {
    static let table = "todoitem"

    @Test("a rebuild of 3,000 ids holds a few hundred in memory and gives each id its newest number")
    func aRebuildSortsOutsideMemory() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let store = try makeStore(dir)
        let ids = (0..<3000).map { "id-\(($0 * 7919) % 3000)" }
        try IDIndexTests.commit(store, adding: ids)
        // Gone (numbers retired), and some back with new numbers.
        try IDIndexTests.commit(store, removing: Array(ids.prefix(100)))
        try IDIndexTests.commit(store, adding: Array(ids.prefix(10)))
        store.idIndexSortBudget = 16 << 10
        #expect(IDIndex.rebuild(Self.table, store))
        let figures = try #require(store.lastIDIndexRebuild)
        #expect(figures.keys == 2910)
        #expect(figures.runs > 0)
        #expect(figures.peakRecords < 1000, "records held at once: \(figures.peakRecords)")
        #expect(IDIndex.isVouched(Self.table, in: store))
        #expect(IDIndex.check(store, tables: [Self.table]).isEmpty)
        #expect((store.itemNumber(table: Self.table, id: ids[0]) ?? 0) > 3000, "back with a new number")
        #expect(store.itemNumber(table: Self.table, id: ids[50]) == nil)
        #expect(IDIndex.entries(withPrefix: "id-299", table: Self.table, in: store)?.map(\.key) == ["id-299"] + (2990...2999).map { "id-\($0)" })
    }

    @Test("an empty table rebuilds to one empty bucket")
    func anEmptyTable() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let store = try makeStore(dir)
        try IDIndexTests.commit(store, adding: ["a"])
        try IDIndexTests.commit(store, removing: ["a"])
        #expect(IDIndex.rebuild(Self.table, store))
        #expect(IDIndex.buckets(Self.table, in: store)?.count == 1)
        #expect(IDIndex.entries(withPrefix: "", table: Self.table, in: store) == [])
    }

    @Test("only an index the command's own commits left stale is rebuilt at its end")
    func rebuildsWhatItsCommitsLeftStale() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let store = try makeStore(dir)
        store.idIndexBucketLimit = 2
        try IDIndexTests.commit(store, adding: (0..<100).map { "k\(1000 + $0)" })
        #expect(IDIndex.rebuild(Self.table, store))
        // A file added by hand: stale, but not by this command's commits.
        try store.fs.writeFile(store.layout.absolute(store.layout.item(Self.table, "by-hand")),
                               ItemCopyFormat.json(Item(id: "by-hand", fields: ["text": "x"])).canonicalBytes(), sync: false)
        store.rebuildIDIndexesLeftStale()
        #expect(!IDIndex.isVouched(Self.table, in: store), "a hand edit is left to doctor or a local change")
        #expect(IDIndex.rebuild(Self.table, store))
        // One new key beside each of 40 keys: more buckets than a commit keeps.
        try IDIndexTests.commit(store, adding: (0..<40).map { "k\(1000 + $0)5" })
        #expect(!IDIndex.isVouched(Self.table, in: store))
        store.rebuildIDIndexesLeftStale()
        #expect(IDIndex.isVouched(Self.table, in: store))
        #expect(IDIndex.check(store, tables: [Self.table]).isEmpty)
        #expect(IDIndex.neighbours(of: "k10005", table: Self.table, in: store)?.found?.key == "k10005")
    }
}
