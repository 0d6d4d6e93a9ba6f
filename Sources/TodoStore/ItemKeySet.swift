/// A set of items' keys (`<table>/<enc>`) in 16 bytes an item: the items a walk of the queue
/// showed (`todo diff`), so that conflicts and hand edits are not shown twice, and the items
/// with pending operations (`todo doctor`) (two 64-bit hashes of `<table>/<enc>`, 16 MB at a million
/// items, where a set of the strings took about 100 MB), sorted once the walk is over.
///
/// Two independent hashes of the same key collide for two different keys with a chance of about
/// n² / 2¹²⁹: none in any replica (the key is a table and an id, not chosen to collide).
public struct ItemKeySet {
    struct Hash: Comparable {
        var a: UInt64
        var b: UInt64
        static func < (x: Hash, y: Hash) -> Bool { (x.a, x.b) < (y.a, y.b) }
    }

    private var hashes: [Hash] = []
    private var finished = false

    public init() {}

    public mutating func insert(_ key: String) {
        hashes.append(Self.hash(key))
        finished = false
    }

    /// Sorts what was inserted; `contains` needs it.
    public mutating func finish() {
        hashes.sort()
        finished = true
    }

    public func contains(_ key: String) -> Bool {
        precondition(finished, "ItemKeySet.contains before finish")
        let h = Self.hash(key)
        var low = 0, high = hashes.count
        while low < high {
            let mid = (low + high) / 2
            if hashes[mid] < h { low = mid + 1 } else { high = mid }
        }
        return low < hashes.count && hashes[low] == h
    }

    /// FNV-1a 64, and a multiply-xorshift mix of the same bytes with other constants.
    static func hash(_ key: String) -> Hash {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325
        var b: UInt64 = 0x9e37_79b9_7f4a_7c15
        for byte in key.utf8 {
            a = (a ^ UInt64(byte)) &* 0x100_0000_01b3
            b = (b &+ UInt64(byte)) &* 0xbf58_476d_1ce4_e5b9
            b ^= b >> 31
        }
        return Hash(a: a, b: b ^ UInt64(key.utf8.count))
    }
}
