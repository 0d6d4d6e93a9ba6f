import Testing
import TodoBasics
import TodoModel
import TodoTestSupport
@testable import TodoStore

/// The index of ids (`IDIndex`, issue 21 item 3): its lookups give what a search of every key
/// gives, through bucket splits and removals kept by the commits; a commit it cannot keep leaves
/// it stale, never wrong.
@Suite struct IDIndexTests {
    static let table = "todoitem"
    /// Ids that share long prefixes, as ids chosen by people and programs do.
    static let ids = (1...40).map { "task-\(String(1000 + $0).dropFirst())" } + ["rent", "rental", "r", "Ünïcode-1", "ünïcode-2"]
        + (1...20).map { "00000000-0000-4000-8000-0000000000\(10 + $0)" }

    static func commit(_ store: Store, adding added: [String] = [], removing removed: [String] = []) throws {
        var tx = try store.transaction()
        for id in added { tx.putItem(Item(id: id, fields: ["text": .string(id)]), table: table) }
        for id in removed { tx.removeItem(table: table, id: id) }
        try store.commit(tx)
    }

    static func shared(_ a: String, _ b: String) -> Int {
        zip(a.unicodeScalars, b.unicodeScalars).prefix { $0 == $1 }.count
    }

    /// Every lookup against a search of all keys: the closest key shares as much as the best
    /// one, and a prefix gives exactly the keys that start with it, in order.
    static func expectMatches(_ store: Store, keys: Set<String>, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(IDIndex.isVouched(table, in: store), sourceLocation: sourceLocation)
        for key in keys.union(["task-", "task-0205", "s", "zzz", "00000000-0000-4000-8000-000000000099"]) {
            let best = keys.subtracting([key]).map { shared(key, $0) }.max()
            let closest = try store.closestKnownIDKey(to: key, table: table)
            #expect(closest.map { shared(key, $0) } == best, "closest to \(key): \(closest ?? "none")", sourceLocation: sourceLocation)
        }
        for prefix in ["", "t", "task-00", "task-002", "ren", "r", "ü", "00000000-0000-4000-8000-00000000002", "zzz"] {
            let found = IDIndex.entries(withPrefix: prefix, table: table, in: store)?.map(\.key)
            let want = keys.filter { $0.utf8.starts(with: prefix.utf8) }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            #expect(found == want, "prefix \(prefix)", sourceLocation: sourceLocation)
        }
        #expect(IDIndex.check(store, tables: [table]).isEmpty, sourceLocation: sourceLocation)
    }

    @Test func lookupsMatchASearchOfEveryKeyThroughSplitsAndRemovals() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let store = try makeStore(dir)
        store.idIndexBucketLimit = 6
        try Self.commit(store, adding: Array(Self.ids.prefix(30)))
        #expect(IDIndex.rebuild(Self.table, store))
        var keys = Set(Self.ids.prefix(30).map(ItemID.key))
        try Self.expectMatches(store, keys: keys)
        // Small commits, each kept in the index: buckets split as they fill.
        for chunk in stride(from: 30, to: Self.ids.count, by: 3) {
            let added = Array(Self.ids[chunk..<min(chunk + 3, Self.ids.count)])
            try Self.commit(store, adding: added)
            keys.formUnion(added.map(ItemID.key))
            try Self.expectMatches(store, keys: keys)
        }
        let buckets = try #require(IDIndex.buckets(Self.table, in: store))
        #expect(buckets.count > 11, "\(buckets.count) buckets: splits of the half-full ones")
        try Self.commit(store, removing: ["task-001", "task-002", "rent", "Ünïcode-1"])
        keys.subtract(["task-001", "task-002", "rent", "ünïcode-1"])
        try Self.expectMatches(store, keys: keys)
        #expect(Set(try store.itemKeysOnDisk(table: Self.table)) == keys)
    }

    /// Numbers given by a commit are in the index from that commit on.
    @Test func theIndexHoldsEachItemsNumber() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let store = try makeStore(dir)
        try Self.commit(store, adding: ["b", "a"])
        #expect(IDIndex.rebuild(Self.table, store))
        try Self.commit(store, adding: ["c"])
        #expect(store.itemNumber(table: Self.table, id: "A") == 1)
        #expect(store.itemNumber(table: Self.table, id: "b") == 2)
        #expect(store.itemNumber(table: Self.table, id: "c") == 3)
        #expect(IDIndex.neighbours(of: "c", table: Self.table, in: store)?.found == IDIndex.Entry(key: "c", number: 3))
        #expect(try store.itemKey(number: 3, table: Self.table) == "c")
        #expect(try store.itemNumbers(table: Self.table) == ["a": 1, "b": 2, "c": 3])
    }

    /// A commit that would rewrite more buckets than `stagedBucketLimit` (a pull page) removes
    /// the stamp in the commit itself; lookups list the folder; a rebuild makes it right again.
    @Test func aCommitItCannotKeepLeavesItStale() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let store = try makeStore(dir)
        store.idIndexBucketLimit = 2
        try Self.commit(store, adding: (0..<100).map { "k\(1000 + $0)" })
        #expect(IDIndex.rebuild(Self.table, store))
        // One new key beside each of 40 keys: 40 buckets of one key each.
        try Self.commit(store, adding: (0..<40).map { "k\(1000 + $0)5" })
        #expect(!IDIndex.isVouched(Self.table, in: store))
        #expect(!store.fs.fileExists(store.layout.absolute(IDIndex.stampFile(Self.table))))
        #expect(try store.closestKnownIDKey(to: "k10005", table: Self.table) == "k1000")
        #expect(IDIndex.check(store, tables: [Self.table]).isEmpty, "stale is no finding: rebuilt")
        #expect(IDIndex.isVouched(Self.table, in: store))
        #expect(IDIndex.neighbours(of: "k10005", table: Self.table, in: store)?.before?.key == "k1000")
    }

    /// One commit that fills a bucket far past its limit splits it into pieces that fit.
    @Test func aBucketFilledByOneCommitSplitsIntoPiecesThatFit() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let store = try makeStore(dir)
        store.idIndexBucketLimit = 4
        try Self.commit(store, adding: ["a", "z"])
        #expect(IDIndex.rebuild(Self.table, store))
        try Self.commit(store, adding: (0..<30).map { "m\($0)" })
        let buckets = try #require(IDIndex.buckets(Self.table, in: store))
        for bucket in buckets { #expect((IDIndex.entries(Self.table, bucket.name, in: store)?.count ?? 99) <= 4) }
        try Self.expectMatches(store, keys: Set(["a", "z"] + (0..<30).map { "m\($0)" }))
    }

    /// An item file added by hand moves the folder's stamp: the index is not used until rebuilt.
    @Test func anItemFileAddedByHandIsNeverMissed() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let store = try makeStore(dir)
        try Self.commit(store, adding: ["abcd-1"])
        #expect(IDIndex.rebuild(Self.table, store))
        try store.fs.writeFile(store.layout.absolute(store.layout.item(Self.table, "abcd-2")),
                               ItemCopyFormat.json(Item(id: "abcd-2", fields: ["text": "by hand"])).canonicalBytes(), sync: false)
        #expect(!IDIndex.isVouched(Self.table, in: store))
        #expect(try store.closestKnownIDKey(to: "abcd-1", table: Self.table) == "abcd-2")
        #expect(try store.knownIDKeys(table: Self.table, prefix: "abcd") == ["abcd-1", "abcd-2"])
    }
}
