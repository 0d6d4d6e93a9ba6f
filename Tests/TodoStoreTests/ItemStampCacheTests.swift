import Testing
import TodoBasics
import TodoTestSupport
@testable import TodoStore

/// The stamp cache's form: 16 bytes a clean file (digests of its path and its stamp), sorted, in
/// pages an index names; what it writes it reads back a page at a time, anything else is no
/// cache (form 2 too), and a file counts as clean only with its very path and stamp.
@Suite struct ItemStampCacheTests {
    typealias Entry = ItemStampCache.Entry
    static let a = ("tables/todoitem/items/a.json", FileStamp(inode: .max, size: 12, modified: 1_764_122_283_123_456_789, changed: 1_764_122_283_123_456_790))
    static let b = ("tables/t_2/items/%c3%a9~0123.json", FileStamp(inode: 1, size: 0, modified: 0, changed: 1))

    static func entries(_ n: Int) -> [Entry] {
        (0..<n).map { Entry("tables/todoitem/items/item-\($0).json", FileStamp(inode: UInt64($0), size: 10, modified: 5, changed: 6)) }.sorted()
    }

    @Test func pagesAndIndexRoundTripAt16BytesAnEntry() throws {
        let entries = [Entry(Self.a.0, Self.a.1), Entry(Self.b.0, Self.b.1)].sorted()
        let page = ItemStampCache.encodePage(entries)
        #expect(page.count == 2 * 16)
        #expect(ItemStampCache.parsePage(page) == entries)
        #expect(ItemStampCache.parsePage(page + [1]) == nil, "torn: not whole entries")
        let index = ItemStampCache.Index(token: "41-1764122283123456789", pages: 3, entries: 40_000)
        let bytes = ItemStampCache.encodeIndex(index)
        #expect(String(decoding: bytes, as: UTF8.self) == "todo item stamps 3\n41-1764122283123456789 3 40000\n")
        #expect(ItemStampCache.parseIndex(bytes) == index)
    }

    /// Form 2 held the entries in the file itself: to this form it is no cache (rebuilt by the
    /// next scan), never entries read as an index.
    @Test(arguments: [
        "",
        "todo item stamps 1\na.json 1 2 3 4\n",
        "todo item stamps 2\n",
        "todo item stamps 2\n0123456789abcdef",
        "todo item stamps 3\n",
        "todo item stamps 3\n41-7 3 40000",  // torn: no end of line
        "todo item stamps 3\n41-7 3\n",
        "todo item stamps 3\n../x 3 4\n",
        "todo item stamps 3\n41-7 -1 4\n",
    ])
    func anythingElseIsNoCache(_ text: String) {
        #expect(ItemStampCache.parseIndex(Array(text.utf8)) == nil)
    }

    /// The walk's sort keys sort as the entries do.
    @Test func keysSortAsEntries() {
        let entries = Self.entries(300) + [Entry(path: 1, stamp: .max), Entry(path: 2, stamp: 0), Entry(path: .max, stamp: 1)]
        #expect(entries.map { ItemStampCache.key($0) }.sorted { $0.lexicographicallyPrecedes($1) }.map { ItemStampCache.entry(key: $0) } == entries.sorted())
    }

    /// Any part of the stamp moved, or another path: another entry.
    @Test func onlyTheVeryPathAndStampAreTheEntry() {
        let (path, s) = Self.a
        for other in [FileStamp(inode: 7, size: s.size, modified: s.modified, changed: s.changed),
                      FileStamp(inode: s.inode, size: 13, modified: s.modified, changed: s.changed),
                      FileStamp(inode: s.inode, size: s.size, modified: s.modified - 1, changed: s.changed),
                      FileStamp(inode: s.inode, size: s.size, modified: s.modified, changed: s.changed + 1)] {
            #expect(Entry(path, s) != Entry(path, other), "\(other)")
        }
        #expect(Entry(path, s) != Entry("tables/todoitem/items/b.json", s))
    }

    /// Written in pages, read back a page at a time; a damaged page ends the entries there.
    @Test func aWriterPagesWhatAReaderMeetsInOrder() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let store = try makeStore(dir)
        defer { store.close() }
        store.stampPageEntries = 4
        let start = try #require(ItemStampCache.Start(store))
        var writer = ItemStampCache.Writer(store, token: start.token)
        let entries = Self.entries(10)
        for e in entries + [entries[9]] { writer.add(e) }
        writer.commit(start)
        let index = try #require(ItemStampCache.loadIndex(store))
        #expect(index == ItemStampCache.Index(token: start.token, pages: 3, entries: 10))

        var reader = ItemStampCache.Reader(store, index: index)
        let met = [reader.contains(entries[1]), !reader.contains(Entry(path: entries[5].path, stamp: entries[5].stamp ^ 1))]
        let firstHeld = reader.held
        let later = [reader.contains(entries[6]), reader.contains(entries[9])]
        let lastHeld = reader.held
        let passedAll = reader.passedAll
        #expect(met == [true, true] && later == [true, true] && passedAll)
        #expect(firstHeld == 4 && lastHeld == 2, "a page held, not the cache")

        try LocalFileSystem().writeFile(store.layout.absolute(ItemStampCache.page(start.token, 1)), [1, 2, 3], sync: false)
        var damaged = ItemStampCache.Reader(store, index: index)
        let found = [damaged.contains(entries[3]), damaged.contains(entries[4]), damaged.contains(entries[9]), damaged.passedAll]
        #expect(found == [true, false, false, false], "a torn page ends the entries there")

        // The next cache's commit removes the pages of the last.
        let next = try #require(ItemStampCache.Start(store))
        var second = ItemStampCache.Writer(store, token: next.token + "-x")
        second.add(entries[0])
        second.commit(next)
        let pages = try #require(try LocalFileSystem().listDirectory(store.layout.absolute(ItemStampCache.pagesDirectory)))
        #expect(pages == [next.token + "-x.0"])
    }
}
