import Testing
import TodoBasics
@testable import TodoStore

/// The stamp cache's form: 16 bytes a clean file (digests of its path and its stamp), sorted,
/// under a header; what it writes it reads back, anything else is no cache, and a file counts as
/// clean only with its very path and stamp.
@Suite struct ItemStampCacheTests {
    static let a = ("tables/todoitem/items/a.json", FileStamp(inode: .max, size: 12, modified: 1_764_122_283_123_456_789, changed: 1_764_122_283_123_456_790))
    static let b = ("tables/t_2/items/%c3%a9~0123.json", FileStamp(inode: 1, size: 0, modified: 0, changed: 1))

    static func cache(_ files: [(String, FileStamp)], moment: Int64 = .max) -> ItemStampCache {
        var scan = ItemStampCache.Scan(temp: "", moment: moment)
        for (path, stamp) in files { scan.add(path, stamp) }
        var cache = ItemStampCache()
        cache.merge(scan.entries)
        return cache
    }

    @Test func entriesRoundTripAt16BytesEach() throws {
        let cache = Self.cache([Self.a, Self.b, Self.a])
        #expect(cache.count == 2, "a file met twice is one entry")
        let bytes = cache.encoded()
        #expect(bytes.count == "todo item stamps 2\n".utf8.count + 2 * 16)
        #expect(String(decoding: bytes.prefix(19), as: UTF8.self) == "todo item stamps 2\n")
        let back = try #require(ItemStampCache.parse(bytes))
        #expect(back == cache)
        #expect(back.isClean(Self.a.0, Self.a.1) && back.isClean(Self.b.0, Self.b.1))
        #expect(ItemStampCache.parse(Array("todo item stamps 2\n".utf8))?.count == 0)
    }

    /// Any part of the stamp moved, or another path: read the file again.
    @Test func onlyTheVeryPathAndStampAreClean() {
        let cache = Self.cache([Self.a])
        let (path, s) = Self.a
        #expect(cache.isClean(path, s))
        for other in [FileStamp(inode: 7, size: s.size, modified: s.modified, changed: s.changed),
                      FileStamp(inode: s.inode, size: 13, modified: s.modified, changed: s.changed),
                      FileStamp(inode: s.inode, size: s.size, modified: s.modified - 1, changed: s.changed),
                      FileStamp(inode: s.inode, size: s.size, modified: s.modified, changed: s.changed + 1)] {
            #expect(!cache.isClean(path, other), "\(other)")
        }
        #expect(!cache.isClean("tables/todoitem/items/b.json", s))
        #expect(!ItemStampCache().isClean(path, s))
    }

    /// A file whose times are not older than the start of the scan may change again within the
    /// tick, keeping its stamp: it is not recorded (git's "racily clean").
    @Test func filesAsNewAsTheScanAreNotRecorded() {
        let (path, s) = Self.a
        #expect(Self.cache([Self.a], moment: s.changed).count == 0)
        #expect(Self.cache([Self.a], moment: s.modified).count == 0)
        #expect(Self.cache([Self.a], moment: s.changed + 1).isClean(path, s))
    }

    @Test(arguments: [
        "",
        "todo item stamps 1\n",
        "todo item stamps 1\na.json 1 2 3 4\n",
        "todo item stamps 2",
        "todo item stamps 2\n0123456789abcde",  // torn: 15 bytes of an entry
    ])
    func anythingElseIsNoCache(_ text: String) {
        #expect(ItemStampCache.parse(Array(text.utf8)) == nil)
    }

    @Test func entriesOutOfOrderAreNoCache() {
        let bytes = Self.cache([Self.a, Self.b]).encoded()
        let header = 19
        let swapped = Array(bytes[..<header]) + Array(bytes[(header + 16)...]) + Array(bytes[header..<(header + 16)])
        #expect(ItemStampCache.parse(swapped) == nil)
    }
}
