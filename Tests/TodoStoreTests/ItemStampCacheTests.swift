import Testing
import TodoBasics
@testable import TodoStore

/// The stamp cache's text form: what it writes it reads back, whatever the size of the numbers
/// (64-bit inodes of XFS or btrfs, 19-digit nanosecond times), and anything else is no cache.
@Suite struct ItemStampCacheTests {
    @Test func entriesRoundTripWithTheLargestNumbers() {
        var cache = ItemStampCache()
        cache.entries["tables/todoitem/items/a.json"] = FileStamp(inode: .max, size: 12, modified: 1_764_122_283_123_456_789, changed: .max)
        cache.entries["tables/t_2/items/%c3%a9~0123.json"] = FileStamp(inode: 1, size: 0, modified: 0, changed: 1)
        let bytes = cache.encoded()
        #expect(String(decoding: bytes, as: UTF8.self) == """
            todo item stamps 1
            tables/t_2/items/%c3%a9~0123.json 1 0 0 1
            tables/todoitem/items/a.json 18446744073709551615 12 1764122283123456789 9223372036854775807

            """)
        #expect(ItemStampCache.parse(bytes) == cache.entries)
        #expect(ItemStampCache.parse(Array("todo item stamps 1\n".utf8)) == [:])
    }

    @Test(arguments: [
        "",
        "todo item stamps 2\n",
        "todo item stamps 1\na.json 1 2 3 4",  // no final newline: torn
        "todo item stamps 1\na.json 1 2 3\n",
        "todo item stamps 1\na.json 1 2 3 4 5\n",
        "todo item stamps 1\na.json 1 2 x 4\n",
        "todo item stamps 1\na.json 1 2 -3 4\n",
        "todo item stamps 1\n 1 2 3 4\n",
        "todo item stamps 1\na.json 1 9223372036854775808 3 4\n",  // size beyond Int64
        "todo item stamps 1\na.json 18446744073709551616 2 3 4\n",  // inode beyond UInt64
    ])
    func anythingElseIsNoCache(_ text: String) {
        #expect(ItemStampCache.parse(Array(text.utf8)) == nil)
    }
}
