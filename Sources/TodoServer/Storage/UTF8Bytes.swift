import Glibc

/// Comparisons of strings by their UTF-8 bytes, as ids are ordered and matched (§4.2.4, §4.2.5).
///
/// Why not `a.utf8.lexicographicallyPrecedes(b.utf8)` / `elementsEqual`: those walk the views
/// index by index through generic code, and ids are compared a lot (the id index's binary search,
/// every dictionary probe by row key), which made them a tenth of an insert's CPU. Native strings
/// keep their UTF-8 contiguous, so one `memcmp` gives the same answer.
enum UTF8Bytes {
    /// Whether `a`'s bytes sort before `b`'s (unsigned bytes, a prefix first).
    static func less(_ a: String, _ b: String) -> Bool { compare(a, b) < 0 }

    /// Whether the two hold the same bytes (no Unicode canonical equivalence, unlike `==`).
    static func equal(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        return compare(a, b) == 0
    }

    /// Negative, zero or positive as `a`'s bytes sort before, equal or after `b`'s.
    static func compare(_ a: String, _ b: String) -> Int {
        let order = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in compare(x, y) }
        }
        if let order = order ?? nil { return order }
        // Not contiguous (not a native string): the generic walk.
        if a.utf8.elementsEqual(b.utf8) { return 0 }
        return a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : 1
    }

    private static func compare(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Int {
        let common = min(x.count, y.count)
        if common > 0 {
            let order = memcmp(x.baseAddress!, y.baseAddress!, common)
            if order != 0 { return Int(order) }
        }
        return x.count - y.count
    }
}
