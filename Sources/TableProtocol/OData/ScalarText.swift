/// String operations by Unicode scalar values, as protocol §8.7 requires.
///
/// Why not `String.contains`/`hasPrefix`: those compare `Character`s under canonical equivalence,
/// so `"é"` (one scalar) would match `"e\u{301}"` (two). Searching the UTF-8 bytes is exactly a
/// search by scalars, because UTF-8 is self-synchronising, and it reads the strings in place.
enum ScalarText {
    static func contains(_ haystack: String, _ needle: String) -> Bool {
        firstByteOffset(of: needle, in: haystack) != nil
    }

    static func hasPrefix(_ s: String, _ prefix: String) -> Bool {
        s.utf8.starts(with: prefix.utf8)
    }

    static func hasSuffix(_ s: String, _ suffix: String) -> Bool {
        let (sCount, suffixCount) = (s.utf8.count, suffix.utf8.count)
        guard suffixCount <= sCount else { return false }
        return s.utf8.dropFirst(sCount - suffixCount).elementsEqual(suffix.utf8)
    }

    /// Scalar index of the first `needle` in `haystack`, or -1; an empty needle is found at 0.
    static func indexOf(_ needle: String, in haystack: String) -> Int {
        guard let offset = firstByteOffset(of: needle, in: haystack) else { return -1 }
        var scalars = 0
        for byte in haystack.utf8.prefix(offset) where byte & 0xC0 != 0x80 { scalars += 1 }
        return scalars
    }

    /// At most `count` scalars from scalar index `start`; both already clamped to be non-negative.
    static func substring(_ s: String, from start: Int, count: Int?) -> String {
        let scalars = s.unicodeScalars
        let from = scalars.index(scalars.startIndex, offsetBy: start, limitedBy: scalars.endIndex) ?? scalars.endIndex
        guard let count else { return String(scalars[from...]) }
        let to = scalars.index(from, offsetBy: count, limitedBy: scalars.endIndex) ?? scalars.endIndex
        return String(scalars[from..<to])
    }

    /// Every non-overlapping `find`, left to right, replaced; an empty `find` returns `s`.
    static func replace(_ s: String, _ find: String, with replacement: String) -> String {
        guard !find.isEmpty, firstByteOffset(of: find, in: s) != nil else { return s }
        return withBytes(s) { source in
            withBytes(find) { pattern in
                var out: [UInt8] = []
                out.reserveCapacity(source.count)
                var i = 0
                while i < source.count {
                    if let match = firstMatch(pattern, in: source, from: i) {
                        out.append(contentsOf: source[i..<match])
                        out.append(contentsOf: replacement.utf8)
                        i = match + pattern.count
                    } else {
                        out.append(contentsOf: source[i...])
                        break
                    }
                }
                return String(decoding: out, as: UTF8.self)
            }
        }
    }

    /// `s` without leading and trailing scalars that have the Unicode White_Space property.
    static func trim(_ s: String) -> String {
        let scalars = s.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        if first == scalars.startIndex && scalars.index(after: last) == scalars.endIndex { return s }
        return String(scalars[first...last])
    }

    static func scalarCount(_ s: String) -> Int {
        s.unicodeScalars.count
    }

    // MARK: - Byte search

    private static func firstByteOffset(of needle: String, in haystack: String) -> Int? {
        withBytes(haystack) { h in withBytes(needle) { n in firstMatch(n, in: h, from: 0) } }
    }

    private static func firstMatch(_ needle: UnsafeBufferPointer<UInt8>, in haystack: UnsafeBufferPointer<UInt8>,
                                   from start: Int) -> Int? {
        guard needle.count > 0 else { return start }
        guard haystack.count >= needle.count else { return nil }
        let first = needle[0]
        var i = start
        let last = haystack.count - needle.count
        outer: while i <= last {
            if haystack[i] == first {
                var j = 1
                while j < needle.count {
                    if haystack[i + j] != needle[j] {
                        i += 1
                        continue outer
                    }
                    j += 1
                }
                return i
            }
            i += 1
        }
        return nil
    }

    /// The UTF-8 bytes of `s` in place (native strings), or a copy.
    private static func withBytes<R>(_ s: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = s.utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(s.utf8).withUnsafeBufferPointer(body)
    }
}
