/// A small value for each of a set of items' keys, in 24 bytes an item: the kind of each
/// pending item's last operation, which `list` and `export` show (a dictionary of the encoded
/// ids held some 200 MB at a million pending items, issue 21). The key is kept as `ItemKeySet`
/// keeps it, two 64-bit hashes; a later `order` wins (an operation's sequence).
///
/// Entries go into blocks of a fixed size, so that growing never copies the whole (an array
/// doubling would hold twice the entries for a moment); each block is sorted once, and a lookup
/// searches each block.
public struct ItemKeyMap {
    private struct Entry {
        var hash: ItemKeySet.Hash
        /// The order above 8 bits, the value in the low byte: the largest wins.
        var packed: UInt64
    }

    static let blockSize = 1 << 18
    private var blocks: [[Entry]] = []
    private var finished = false

    public init() {}

    /// `order`: below 2⁵⁶; of two values of one key, the one of the larger order is kept.
    public mutating func insert(_ key: String, order: Int, value: UInt8) {
        if blocks.last.map({ $0.count == Self.blockSize }) ?? true {
            blocks.append([])
            blocks[blocks.count - 1].reserveCapacity(Self.blockSize)
        }
        blocks[blocks.count - 1].append(Entry(hash: ItemKeySet.hash(key), packed: UInt64(order) << 8 | UInt64(value)))
        finished = false
    }

    /// Sorts what was inserted; lookups need it.
    public mutating func finish() {
        for i in blocks.indices { blocks[i].sort { ($0.hash, $0.packed) < ($1.hash, $1.packed) } }
        finished = true
    }

    /// The value of the largest order inserted with `key`, or nil.
    public subscript(key: String) -> UInt8? {
        precondition(finished, "ItemKeyMap lookup before finish")
        let h = ItemKeySet.hash(key)
        var best: UInt64?
        for block in blocks {
            // The last entry of the key: the first past it, less one.
            var low = 0, high = block.count
            while low < high {
                let mid = (low + high) / 2
                if block[mid].hash < h || block[mid].hash == h { low = mid + 1 } else { high = mid }
            }
            if low > 0, block[low - 1].hash == h { best = max(best ?? 0, block[low - 1].packed) }
        }
        return best.map { UInt8(truncatingIfNeeded: $0) }
    }

    public var isEmpty: Bool { blocks.isEmpty }
}
