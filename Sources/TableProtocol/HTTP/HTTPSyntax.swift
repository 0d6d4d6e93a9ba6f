import TodoModel

/// Byte classes and small helpers from the HTTP grammar (RFC 9110, RFC 9112).
///
/// Everything works on bytes: the parsers never build a `String` until a piece is known to be valid.
enum HTTPSyntax {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let colon: UInt8 = 0x3A
    static let comma: UInt8 = 0x2C
    static let semicolon: UInt8 = 0x3B

    /// `tchar` (RFC 9110 §5.6.2): the bytes of methods and field names.
    @inline(__always)
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: true
        default: false
        }
    }

    /// Bytes allowed in a request-target: visible ASCII. Anything else is malformed.
    @inline(__always)
    static func isTargetByte(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F
    }

    /// `field-vchar / SP / HTAB`, with obs-text allowed: every byte except controls and DEL.
    @inline(__always)
    static func isFieldValueByte(_ byte: UInt8) -> Bool {
        byte == tab || (byte >= 0x20 && byte != 0x7F)
    }

    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == space || byte == tab
    }

    @inline(__always)
    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    /// The value of a hex digit, or nil.
    @inline(__always)
    static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case 0x30...0x39: Int(byte - 0x30)
        case 0x41...0x46: Int(byte - 0x41 + 10)
        case 0x61...0x66: Int(byte - 0x61 + 10)
        default: nil
        }
    }

    /// ASCII case-insensitive equality, without allocating.
    static func equalsIgnoringCase(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
        // Most header lookups compare names of different lengths: no need to walk them.
        guard a.utf8.count == b.utf8.count else { return false }
        var left = a.utf8.makeIterator()
        var right = b.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return true
            case let (x?, y?): if lowercased(x) != lowercased(y) { return false }
            default: return false
            }
        }
    }

    /// `equalsIgnoringCase` for two strings (header names), on their contiguous bytes: the
    /// generic walk cost 83 instructions a comparison, mostly of names that differ in length,
    /// and a request's lookups (credentials, generation, CORS) make about 40 of them.
    static func equalsIgnoringCase(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var a = a, b = b  // withUTF8 is mutating; native strings are not copied
        return a.withUTF8 { x in
            b.withUTF8 { y in
                for i in 0..<x.count where lowercased(x[i]) != lowercased(y[i]) { return false }
                return true
            }
        }
    }

    /// `bytes` decoded as UTF-8 (invalid sequences become U+FFFD), or `earlier` itself when its
    /// UTF-8 is exactly `bytes`: a string's UTF-8 is always valid, so decoding would give it again.
    static func string(_ bytes: ArraySlice<UInt8>, reusing earlier: String?) -> String {
        if var earlier, earlier.utf8.count == bytes.count {
            let same = earlier.withUTF8 { a in bytes.withUnsafeBufferPointer { b in UTF8Text.equal(a, b) } }
            if same { return earlier }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `bytes` spells `lowercasedName` in any letter case.
    static func matches(_ bytes: ArraySlice<UInt8>, lowercasedName: [UInt8]) -> Bool {
        guard bytes.count == lowercasedName.count else { return false }
        var index = bytes.startIndex
        for expected in lowercasedName {
            if lowercased(bytes[index]) != expected { return false }
            index += 1
        }
        return true
    }

    /// Removes SP and HTAB at both ends.
    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, isWhitespace(bytes[start]) { start += 1 }
        while end > start, isWhitespace(bytes[end - 1]) { end -= 1 }
        return bytes[start..<end]
    }

    /// The elements of a comma-separated list, trimmed, empty ones dropped (RFC 9110 §5.6.1).
    static func listElements(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        bytes.split(separator: comma, omittingEmptySubsequences: false)
            .map(trimmed)
            .filter { !$0.isEmpty }
    }

    /// A decimal number of one or more digits. Values past `Int.max` saturate, since every such
    /// number is over any limit anyway. Nil when a byte is not a digit.
    static func decimalValue(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard !bytes.isEmpty else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(byte - 0x30))
            value = overflow1 || overflow2 ? Int.max : sum
        }
        return value
    }

    /// Bytes shown in an error message: printable ASCII kept, the rest escaped, long input cut.
    static func quoted(_ bytes: ArraySlice<UInt8>, limit: Int = 40) -> String {
        var text = "'"
        for byte in bytes.prefix(limit) {
            if byte >= 0x20 && byte < 0x7F && byte != 0x27 {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                text += "\\x" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        if bytes.count > limit { text += "..." }
        return text + "'"
    }

    /// HTTP/1.1 keeps a connection open unless told `close`; HTTP/1.0 closes unless told `keep-alive`.
    static func keepAlive(version: HTTPVersion, close: Bool, keepAlive: Bool) -> Bool {
        if close { return false }
        return version == .http1_1 || keepAlive
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
