/// The items a pull wrote into a table whose items folder held none when the pull met it, kept as
/// a fixed-size Bloom filter: "no" means the item is absent (no failed open per row of a clone),
/// "maybe" means open its file. Why a filter and not a set of names: a clone of a million rows
/// would keep about 100 MB of names; this keeps 1 MB whatever the table's size, and a false
/// "maybe" (about 3 % at a million items) costs one failed open.
struct WrittenItems {
    private static let wordCount = 1 << 17  // 2^23 bits
    private var words = [UInt64](repeating: 0, count: wordCount)

    mutating func insert(_ fileName: String) {
        for bit in Self.bits(fileName) { words[bit >> 6] |= 1 << UInt64(bit & 63) }
    }

    func mayContain(_ fileName: String) -> Bool {
        Self.bits(fileName).allSatisfy { words[$0 >> 6] & (1 << UInt64($0 & 63)) != 0 }
    }

    /// Three bit positions from one 64-bit hash (Kirsch–Mitzenmacher: h1 + i·h2).
    private static func bits(_ fileName: String) -> [Int] {
        var hasher = Hasher()
        hasher.combine(fileName)
        let hash = UInt64(bitPattern: Int64(hasher.finalize()))
        let h1 = hash & 0xffff_ffff, h2 = (hash >> 32) | 1
        let mask = UInt64(wordCount * 64 - 1)
        return (0..<3).map { Int((h1 &+ UInt64($0) &* h2) & mask) }
    }
}
