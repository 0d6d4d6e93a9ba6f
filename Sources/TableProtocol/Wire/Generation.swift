/// The protocol generations (protocol §2): Mobile Services (G1) and Mobile Apps 2.0 (G2).
/// Stored data is the same for both; only names and a few statuses differ.
public enum Generation: String, Sendable, CaseIterable {
    case mobileServices = "G1"
    case mobileApps = "G2"

    /// The wire name of a system property in this generation.
    public func name(_ property: SystemProperty) -> String {
        self == .mobileServices ? "__" + property.rawValue : property.rawValue
    }
}

/// System properties other than `id` (protocol §4.1).
public enum SystemProperty: String, Sendable, CaseIterable {
    case createdAt, updatedAt, version, deleted

    /// Either spelling (`createdAt`, `__createdAt`), any letter case, as requests may name them.
    /// Compared as ASCII bytes (no Unicode letter has one of these names as its lower case):
    /// a sync reads this for every member of every row it gets.
    public init?(anySpelling name: String) {
        var name = name  // withUTF8 is mutating; a native string is not copied
        let found = name.withUTF8 { bytes -> SystemProperty? in
            let start = bytes.count >= 2 && bytes[0] == UInt8(ascii: "_") && bytes[1] == UInt8(ascii: "_") ? 2 : 0
            let length = bytes.count - start
            // A byte matches when it is the letter in either case (every spelling is letters only).
            for (property, lower) in Self.lowerSpellings where lower.count == length {
                var i = 0
                while i < length, bytes[start + i] | 0x20 == lower[i] { i += 1 }
                if i == length { return property }
            }
            return nil
        }
        guard let found else { return nil }
        self = found
    }

    /// Each property's name in lower-case bytes, made once: `allCases` and closures over zipped
    /// views cost ~480 instructions a name.
    private static let lowerSpellings: [(SystemProperty, [UInt8])] = allCases.map { ($0, Array($0.rawValue.lowercased().utf8)) }
}

/// Versions as the protocol writes them: standard base64 of the 8-byte big-endian counter
/// (protocol §4.4.2: the 2001st write is `AAAAAAAAB9E=`).
public enum VersionText {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// The 8 bytes padded with a zero byte are 72 bits: 12 characters of 6 bits, the last one
    /// '='. Written straight into the string (12 bytes fit a small string, no allocation): every
    /// answer with a row makes one, and the arrays this used to build cost 3,400 instructions.
    public static func encode(_ version: UInt64) -> String {
        String(unsafeUninitializedCapacity: 12) { out in
            alphabet.withUnsafeBufferPointer { a in
                // Characters 0-9 are bits 63-4 of the counter, six at a time; character 10 its
                // last 4 bits and two bits of the zero pad.
                for i in 0..<10 { out[i] = a[Int(truncatingIfNeeded: version >> UInt64(58 - 6 * i)) & 63] }
                out[10] = a[Int(truncatingIfNeeded: version << 2) & 63]
            }
            out[11] = UInt8(ascii: "=")
            return 12
        }
    }

    /// The counter a version text stands for, or nil when it is not one of ours.
    public static func decode(_ text: String) -> UInt64? {
        let chars = Array(text.utf8)
        guard chars.count == 12, chars[11] == UInt8(ascii: "=") else { return nil }
        var indices: [UInt64] = []
        for c in chars[0..<11] {
            guard let index = alphabet.firstIndex(of: c) else { return nil }
            indices.append(UInt64(index))
        }
        // 10 characters carry 60 bits; the 11th carries the last 4 bits and 2 zero bits.
        guard indices[10] & 3 == 0 else { return nil }
        return indices[0..<10].reduce(UInt64(0)) { $0 << 6 | $1 } << 4 | indices[10] >> 2
    }
}
