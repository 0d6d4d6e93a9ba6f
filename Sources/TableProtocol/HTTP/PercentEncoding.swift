/// Percent-encoding as the protocol uses it (RFC 3986 §2.1, protocol §3.1, §10.3.1).
public enum PercentEncoding {
    public enum DecodingError: Error, Sendable, Equatable, CustomStringConvertible {
        /// A `%` not followed by two hex digits; carries what followed it, e.g. `%G1` or `%4`.
        case invalidEscape(String)
        /// The decoded bytes are not UTF-8.
        case invalidUTF8

        public var description: String {
            switch self {
            case .invalidEscape(let escape): "invalid percent-encoding '\(escape)'"
            case .invalidUTF8: "percent-encoding does not decode to valid UTF-8"
            }
        }
    }

    /// Every UTF-8 byte outside `A–Z a–z 0–9 - . _ ~` becomes `%XX` (uppercase hex). Safe for a path
    /// segment, a query name or value, and a `Link` header (which must not contain a bare `;`).
    public static func encode(_ string: String) -> String {
        var contiguous = string  // scanned as a buffer: walking `String.UTF8View` is slow
        guard !contiguous.withUTF8({ $0.allSatisfy(isUnreserved) }) else { return string }
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(string.utf8.count * 3)
        for byte in string.utf8 {
            if isUnreserved(byte) {
                bytes.append(byte)
            } else {
                bytes.append(0x25)
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Decodes `%XX` escapes, and `+` as a space when `plusAsSpace` (query strings only; in a path
    /// `+` is a literal plus). The result must be valid UTF-8.
    public static func decode(_ text: some StringProtocol, plusAsSpace: Bool) throws(DecodingError) -> String {
        let utf8 = text.utf8
        guard utf8.contains(where: { $0 == 0x25 || (plusAsSpace && $0 == 0x2B) }) else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index < utf8.endIndex {
            let byte = utf8[index]
            index = utf8.index(after: index)
            if byte == 0x2B && plusAsSpace {
                bytes.append(0x20)
            } else if byte == 0x25 {
                let escapeEnd = utf8.index(index, offsetBy: 2, limitedBy: utf8.endIndex) ?? utf8.endIndex
                let digits = utf8[index..<escapeEnd]
                guard digits.count == 2, let high = HTTPSyntax.hexValue(digits.first!),
                      let low = HTTPSyntax.hexValue(digits[digits.index(after: digits.startIndex)]) else {
                    throw .invalidEscape("%" + String(decoding: digits, as: UTF8.self))
                }
                bytes.append(UInt8(high << 4 | low))
                index = escapeEnd
            } else {
                bytes.append(byte)
            }
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else { throw .invalidUTF8 }
        return decoded
    }

    @inline(__always)
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E: true
        default: false
        }
    }
}
