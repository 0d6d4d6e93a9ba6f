/// The one-member JSON objects the index of ids writes, `{"<member>": ["<string>", …]}` with any
/// white space, read as bytes: the ranges of the strings' contents, or nil when a string holds an
/// escape or a control character or the file has another shape (the JSON parser then decides).
/// Shared by `DirectoryScan` and `BucketScan`, which read what the strings say.
enum StringListScan {
    static func strings(_ b: [UInt8], member: String) -> [Range<Int>]? {
        var i = 0
        func skipSpace() { while i < b.count && (b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09) { i += 1 } }
        func expect(_ text: String) -> Bool {
            skipSpace()
            for byte in text.utf8 {
                guard i < b.count, b[i] == byte else { return false }
                i += 1
            }
            return true
        }
        guard expect("{"), expect("\"" + member + "\""), expect(":"), expect("[") else { return nil }
        var result: [Range<Int>] = []
        skipSpace()
        if i < b.count && b[i] == UInt8(ascii: "]") {
            i += 1
        } else {
            while true {
                guard expect("\"") else { return nil }
                let start = i
                while i < b.count && b[i] != UInt8(ascii: "\"") {
                    guard b[i] != UInt8(ascii: "\\"), b[i] >= 0x20 else { return nil }
                    i += 1
                }
                guard i < b.count else { return nil }
                result.append(start..<i)
                i += 1
                if expect(",") { continue }
                guard expect("]") else { return nil }
                break
            }
        }
        guard expect("}") else { return nil }
        skipSpace()
        return i == b.count ? result : nil
    }
}

/// The directory of the index of ids (`IDIndex`) read as bytes, as `IDIndex` writes it:
/// `{"buckets": ["<name> <bound>", …]}`, names in decimal digits, the first bound empty and the
/// others in order. At 1,000,000 items it is 90 KB, which the JSON parser takes over a millisecond
/// to turn into values; this takes a tenth of that. Anything else (an escape, a damaged file) is
/// nil here, and left to the JSON parser, which decides.
enum DirectoryScan {
    static func buckets(_ b: [UInt8]) -> [(name: String, bound: String)]? {
        guard let strings = StringListScan.strings(b, member: "buckets"), !strings.isEmpty else { return nil }
        var result: [(name: String, bound: String)] = []
        result.reserveCapacity(strings.count)
        var lastBound: Range<Int>?
        for string in strings {
            guard let space = b[string].firstIndex(of: 0x20), space > string.lowerBound, space - string.lowerBound <= 9,
                  b[string.lowerBound..<space].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
            let bound = (space + 1)..<string.upperBound
            if let last = lastBound {
                guard b[last].lexicographicallyPrecedes(b[bound]) else { return nil }
            } else {
                guard bound.isEmpty else { return nil }
            }
            lastBound = bound
            result.append((String(decoding: b[string.lowerBound..<space], as: UTF8.self), String(decoding: b[bound], as: UTF8.self)))
        }
        return result
    }
}
