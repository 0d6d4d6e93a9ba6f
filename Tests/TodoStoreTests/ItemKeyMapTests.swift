import Testing
@testable import TodoStore

/// `list`'s kinds of the pending items' last operations, in 24 bytes an item (issue 21).
@Suite struct ItemKeyMapTests {
    @Test func theLargestOrderWinsAcrossBlocks() {
        var map = ItemKeyMap()
        let n = ItemKeyMap.blockSize + 1000
        for i in 0..<n { map.insert("todoitem/\(i % 1000)", order: i, value: UInt8(i % 3)) }
        map.insert("todoitem/7", order: 5, value: 2)
        map.finish()
        let last = (0..<n).last { $0 % 1000 == 7 }!
        #expect(last >= ItemKeyMap.blockSize, "the last one is in the second block")
        #expect(map["todoitem/7"] == UInt8(last % 3))
        #expect(map["todoitem/1000"] == nil)
        #expect(map["other/7"] == nil)
    }
}
