import Testing
import TableProtocol
@testable import TodoServer

/// `RowRenderer.order` sorts members by integer prefixes of their names and drops a name's earlier
/// members next to their twin; it must pick and order exactly the members the pairwise way does
/// (every name compared with every later one, by `==`), kept as `orderComparingPairs`.
@Suite struct RowRendererOrderTests {
    @Test func picksAndOrdersAsComparingEveryPair() {
        // Short and long names sharing 8-byte prefixes, prefixes of each other, NUL and high ASCII,
        // names listed twice or three times, and non-ASCII names (the pairwise way itself).
        let pool = ["id", "text", "complete", "createdAt", "updatedAt", "version", "deleted", "__version",
                    "abcdefgh", "abcdefghi", "abcdefgh0", "abcdefg", "a", "A", "Z", "_", "ab\u{0}", "ab",
                    "abcdefgh\u{7f}", "x1", "x10", "x2", "caf\u{e9}", "cafe\u{301}", "\u{e9}"]
        var state: UInt64 = 0x853C_49E6_748F_EA9B
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % n
        }
        var asciiRuns = 0
        for _ in 0..<3000 {
            let count = next(14)
            let names = (0..<count).map { _ in pool[next(pool.count)] }
            let listed: [(name: String, member: RowRenderer.Member)] = names.enumerated().map { ($1, .column("\($0)")) }
            let expected = RowRenderer.orderComparingPairs(listed)
            #expect(RowRenderer.order(listed) == expected, "\(names)")
            if names.allSatisfy({ $0.utf8.allSatisfy { $0 < 0x80 } }) && Set(names).count < names.count { asciiRuns += 1 }
        }
        #expect(asciiRuns > 100)  // the sorted way saw many lists with a name listed twice
    }
}
