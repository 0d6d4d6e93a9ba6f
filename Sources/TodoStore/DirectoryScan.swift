/// The directory of the index of ids (`IDIndex`) read as bytes, as `IDIndex` writes it:
/// `{"buckets": ["<name> <bound>", …]}` with any white space, names in decimal digits, bounds in
/// order, no escape in any string. At 1,000,000 items it is 90 KB, which the JSON parser takes
/// over a millisecond to turn into values; this takes a tenth of that. Anything else (an escape,
/// a damaged file) is nil here, and left to the JSON parser, which decides.
enum DirectoryScan {
    static func buckets(_ b: [UInt8]) -> [(name: String, bound: String)]? {
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
        guard expect("{"), expect("\"buckets\""), expect(":"), expect("[") else { return nil }
        var result: [(name: String, bound: String)] = []
        var lastBound: Range<Int>?
        while true {
            guard expect("\"") else { return nil }
            let start = i
            var space = -1
            while i < b.count && b[i] != UInt8(ascii: "\"") {
                guard b[i] != UInt8(ascii: "\\"), b[i] >= 0x20 else { return nil }
                if b[i] == 0x20 && space < 0 { space = i }
                i += 1
            }
            guard i < b.count, space > start, space - start <= 9,
                  b[start..<space].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
            let bound = (space + 1)..<i
            i += 1
            if let last = lastBound {
                guard b[last].lexicographicallyPrecedes(b[bound]) else { return nil }
            } else {
                guard bound.isEmpty else { return nil }
            }
            lastBound = bound
            result.append((String(decoding: b[start..<space], as: UTF8.self), String(decoding: b[bound], as: UTF8.self)))
            if expect(",") { continue }
            guard expect("]") else { return nil }
            break
        }
        guard expect("}") else { return nil }
        skipSpace()
        return i == b.count ? result : nil
    }
}
