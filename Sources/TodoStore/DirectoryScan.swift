/// The one-member JSON objects the index of ids writes, `{"<member>": ["<string>", …]}` with any
/// white space, read as bytes: the ranges of the strings' contents, or nil when a string holds an
/// escape or a control character or the file has another shape (the JSON parser then decides).
/// Shared by `DirectoryScan` and `BucketScan`, which read what the strings say.
enum StringListScan {
    static func strings(_ bytes: [UInt8], member: String) -> [Range<Int>]? {
        bytes.withUnsafeBufferPointer { strings($0, member: Array(member.utf8)) }
    }

    /// One pass over the bytes, with no closure capturing the position: at a million ids the
    /// directory is 90 KB and a bucket 25 KB, read by every command that names an item.
    private static func strings(_ b: UnsafeBufferPointer<UInt8>, member: [UInt8]) -> [Range<Int>]? {
        let quote = UInt8(ascii: "\"")
        var i = 0
        guard take(UInt8(ascii: "{"), b, &i), take(quote, b, &i) else { return nil }
        for c in member {
            guard i < b.count, b[i] == c else { return nil }
            i += 1
        }
        guard i < b.count, b[i] == quote else { return nil }
        i += 1
        guard take(UInt8(ascii: ":"), b, &i), take(UInt8(ascii: "["), b, &i) else { return nil }
        var result: [Range<Int>] = []
        if !take(UInt8(ascii: "]"), b, &i) {
            while true {
                guard take(quote, b, &i) else { return nil }
                let start = i
                i = stop(b, from: i)
                guard i < b.count, b[i] == quote else { return nil }
                result.append(start..<i)
                i += 1
                if take(UInt8(ascii: ","), b, &i) { continue }
                guard take(UInt8(ascii: "]"), b, &i) else { return nil }
                break
            }
        }
        guard take(UInt8(ascii: "}"), b, &i) else { return nil }
        skipSpace(b, &i)
        return i == b.count ? result : nil
    }

    /// The first byte from `start` on that ends or spoils a string (a quote, a backslash, a
    /// control character), 16 bytes at a time.
    @inline(__always) private static func stop(_ b: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var i = start
        let quote = SIMD16<UInt8>(repeating: UInt8(ascii: "\"")), backslash = SIMD16<UInt8>(repeating: UInt8(ascii: "\\"))
        let space = SIMD16<UInt8>(repeating: 0x20)
        if let base = UnsafeRawPointer(b.baseAddress) {
            while i + 16 <= b.count {
                let v = base.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
                if any((v .== quote) .| (v .== backslash) .| (v .< space)) { break }
                i += 16
            }
        }
        while i < b.count, b[i] != UInt8(ascii: "\""), b[i] != UInt8(ascii: "\\"), b[i] >= 0x20 { i += 1 }
        return i
    }

    @inline(__always) private static func skipSpace(_ b: UnsafeBufferPointer<UInt8>, _ i: inout Int) {
        while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
    }

    /// Skips white space, then `c` if it is next.
    @inline(__always) private static func take(_ c: UInt8, _ b: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> Bool {
        skipSpace(b, &i)
        guard i < b.count, b[i] == c else { return false }
        i += 1
        return true
    }
}

/// The directory of the index of ids (`IDIndex`) read as bytes, as `IDIndex` writes it:
/// `{"buckets": ["<name> <bound>", …]}`, names in decimal digits, the first bound empty and the
/// others in order. At 1,000,000 items it is 90 KB, which the JSON parser takes over a millisecond
/// to turn into values; this takes a tenth of that. Anything else (an escape, a damaged file) is
/// nil here, and left to the JSON parser, which decides.
enum DirectoryScan {
    static func buckets(_ b: [UInt8]) -> [(name: String, bound: String)]? { directory(b).map(Array.init) }

    /// The directory as read, without a String per bucket (`BucketDirectory`).
    static func directory(_ bytes: [UInt8]) -> BucketDirectory? {
        guard let strings = StringListScan.strings(bytes, member: "buckets"), !strings.isEmpty else { return nil }
        var lines: [(name: Range<Int>, bound: Range<Int>)] = []
        lines.reserveCapacity(strings.count)
        let valid = bytes.withUnsafeBufferPointer { b -> Bool in
            var lastBound: Range<Int>?
            for string in strings {
                // A name of 1 to 9 digits, a space, then the bound.
                var space = string.lowerBound
                while space < string.upperBound, b[space] >= UInt8(ascii: "0"), b[space] <= UInt8(ascii: "9") { space += 1 }
                guard space < string.upperBound, b[space] == 0x20, space > string.lowerBound, space - string.lowerBound <= 9 else { return false }
                let bound = (space + 1)..<string.upperBound
                if let last = lastBound {
                    guard UnsafeBufferPointer(rebasing: b[last]).lexicographicallyPrecedes(UnsafeBufferPointer(rebasing: b[bound])) else { return false }
                } else {
                    guard bound.isEmpty else { return false }
                }
                lastBound = bound
                lines.append((string.lowerBound..<space, bound))
            }
            return true
        }
        return valid ? BucketDirectory(bytes: bytes, lines: lines) : nil
    }
}

/// The buckets of the index of ids in key order, as (name, bound), kept as the bytes they were
/// read from: a lookup makes Strings of the few entries it touches and finds a key's bucket by
/// comparing bytes. At 1,000,000 items the directory holds 1,953 buckets; a String of each name
/// and bound, made and then freed, was 40% of the instructions of an `edit` (issue 21 item 3).
struct BucketDirectory: RandomAccessCollection {
    private let bytes: [UInt8]
    private let lines: [(name: Range<Int>, bound: Range<Int>)]

    fileprivate init(bytes: [UInt8], lines: [(name: Range<Int>, bound: Range<Int>)]) {
        self.bytes = bytes
        self.lines = lines
    }

    /// Buckets given as values (a commit's new directory, the JSON parser's reading).
    init(_ buckets: [(name: String, bound: String)]) {
        var bytes: [UInt8] = []
        var lines: [(name: Range<Int>, bound: Range<Int>)] = []
        lines.reserveCapacity(buckets.count)
        for bucket in buckets {
            let name = bytes.count..<(bytes.count + bucket.name.utf8.count)
            bytes.append(contentsOf: bucket.name.utf8)
            let bound = bytes.count..<(bytes.count + bucket.bound.utf8.count)
            bytes.append(contentsOf: bucket.bound.utf8)
            lines.append((name, bound))
        }
        self.bytes = bytes
        self.lines = lines
    }

    var startIndex: Int { 0 }
    var endIndex: Int { lines.count }
    subscript(i: Int) -> (name: String, bound: String) {
        (String(decoding: bytes[lines[i].name], as: UTF8.self), String(decoding: bytes[lines[i].bound], as: UTF8.self))
    }

    /// The index of the bucket that holds `key`: the last whose bound is not after it, in
    /// UTF-8 bytes (`IDIndex.precedes`).
    func position(of key: String) -> Int {
        var key = key
        return key.withUTF8 { k in
            bytes.withUnsafeBufferPointer { b in
                var low = 0, high = lines.count - 1
                while low < high {
                    let mid = (low + high + 1) / 2
                    if k.lexicographicallyPrecedes(UnsafeBufferPointer(rebasing: b[lines[mid].bound])) { high = mid - 1 } else { low = mid }
                }
                return low
            }
        }
    }

    /// The largest bucket name, for the name of a split's new bucket.
    var largestName: UInt32 { indices.compactMap { UInt32(self[$0].name) }.max() ?? 0 }
}
