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

    /// `s.lowercased()`, but `s` itself when it is ASCII without an upper-case letter (ids as
    /// clients make them, table names): the same bytes, without making a new string. An insert
    /// lowercased its id four times (row keys), about 500 instructions and an allocation each.
    static func lowercased(_ s: String) -> String {
        var probe = s  // withUTF8 is mutating; a native string is not copied
        let unchanged = probe.withUTF8 { bytes in !hasUpperCaseOrNonASCII(bytes) }
        return unchanged ? s : s.lowercased()
    }

    /// Eight bytes at a time: a byte is non-ASCII when its top bit is set; an ASCII byte is in
    /// A-Z when adding 0x3F sets its top bit and adding 0x25 does not (no carry can cross bytes).
    private static func hasUpperCaseOrNonASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let high: UInt64 = 0x8080_8080_8080_8080
        var i = 0
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while i + 8 <= bytes.count {
                let w = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                if w & high != 0 { return true }
                if (w &+ 0x3F3F_3F3F_3F3F_3F3F) & ~(w &+ 0x2525_2525_2525_2525) & high != 0 { return true }
                i += 8
            }
        }
        while i < bytes.count {
            let b = bytes[i]
            if b >= 0x80 || (b >= 0x41 && b <= 0x5A) { return true }
            i += 1
        }
        return false
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
