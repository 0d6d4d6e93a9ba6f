import Testing
@testable import TableProtocol

/// `SystemProperty(anySpelling:)` matches on bytes against spellings made once; it must accept
/// exactly what the loop over `allCases` accepted (kept here as `reference`).
@Suite struct SystemPropertySpellingTests {
    static func reference(_ name: String) -> SystemProperty? {
        var name = name
        return name.withUTF8 { bytes -> SystemProperty? in
            var b = bytes[...]
            if b.starts(with: "__".utf8) { b = b.dropFirst(2) }
            return SystemProperty.allCases.first { property in
                property.rawValue.utf8.count == b.count
                    && zip(property.rawValue.utf8, b).allSatisfy { $0 | 0x20 == $1 | 0x20 && ($1 | 0x20) >= 0x61 && ($1 | 0x20) <= 0x7A }
            }
        }
    }

    @Test func acceptsWhatTheLoopOverAllCasesAccepted() {
        var names = ["", "_", "__", "___", "id", "text", "complete", "ms_version", "x__version", "__ms_version", "_version",
                     "____version", "versio", "versions", "vers1on", "version\u{0}", "vérsion", "ve\u{301}rsion", "creat@dAt", "CreatedAT"]
        for property in SystemProperty.allCases {
            let raw = property.rawValue
            names += [raw, raw.uppercased(), raw.lowercased(), "__" + raw, "__" + raw.uppercased(), String(raw.dropLast()), raw + "x"]
            // Each byte pushed off its letter by the bits a case-folding compare could confuse.
            for i in raw.utf8.indices {
                for flip: UInt8 in [0x20, 0x40, 0x80, 0x01] {
                    var bytes = Array(raw.utf8)
                    bytes[raw.utf8.distance(from: raw.utf8.startIndex, to: i)] ^= flip
                    names.append(String(decoding: bytes, as: UTF8.self))
                }
            }
        }
        for name in names { #expect(SystemProperty(anySpelling: name) == Self.reference(name), "\(name.debugDescription)") }
        #expect(SystemProperty(anySpelling: "__UPDATEDAT") == .updatedAt)
        #expect(SystemProperty(anySpelling: "Deleted") == .deleted)
    }
}
