/// One token of a `$filter` or `$orderby` text.
struct FilterToken {
    enum Kind: Equatable {
        /// Keywords, function names and members alike; the parser tells them apart.
        case identifier(String)
        case string(String)
        case number(Double)
        case date(WireInstant)
        case openParen, closeParen, comma, minus
        case end
    }

    var kind: Kind
    /// Byte offsets of the token in the text.
    var start: Int
    var end: Int
    /// Offset of the token in Unicode scalars, as messages and tree positions count.
    var position: Int
}

/// Splits query text into tokens on demand (protocol §8.3, §8.4).
///
/// Why on demand: errors then come in text order, and a parse error stops the work before the rest
/// of a long text is looked at. The lexer works on UTF-8 bytes; positions in messages are converted
/// to Unicode scalar offsets.
struct FilterLexer {
    let bytes: [UInt8]
    /// `$filter` or `$orderby`, for messages.
    let option: String
    private(set) var index = 0
    /// Scalars before `scalarsCountedTo`; tokens come in order, so counting resumes from here.
    private var scalarsCounted = 0
    private var scalarsCountedTo = 0

    init(text: String, option: String) {
        self.bytes = Array(text.utf8)
        self.option = option
    }

    /// The next token; `.end` at the end of the text, again and again.
    @inline(never)
    mutating func next() throws(ODataQueryError) -> FilterToken {
        skipWhitespace()
        let start = index
        guard index < bytes.count else { return token(.end, from: start) }
        let byte = bytes[index]
        switch byte {
        case UInt8(ascii: "("): index += 1; return token(.openParen, from: start)
        case UInt8(ascii: ")"): index += 1; return token(.closeParen, from: start)
        case UInt8(ascii: ","): index += 1; return token(.comma, from: start)
        case UInt8(ascii: "-"): index += 1; return token(.minus, from: start)
        case UInt8(ascii: "'"): return token(.string(try quoted(kind: "string")), from: start)
        case UInt8(ascii: "/"):
            throw error(at: start, "member access with '/' is not supported")
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default:
            guard Self.isIdentifierStart(byte) else {
                throw error(at: start, "unexpected character '\(scalarText(at: start))'")
            }
            return try identifierOrPrefixedLiteral()
        }
    }

    /// Whether the next non-blank character after `token` is `(`: a name followed by `(` is a
    /// call (§8.3).
    func isFollowedByOpenParen(_ token: FilterToken) -> Bool {
        var i = token.end
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
        return i < bytes.count && bytes[i] == UInt8(ascii: "(")
    }

    /// An error at a byte offset, with the position counted in Unicode scalars.
    func error(at byteOffset: Int, _ reason: String) -> ODataQueryError {
        ODataQueryError(option: option, position: scalarOffset(of: byteOffset), reason: reason)
    }

    func scalarOffset(of byteOffset: Int) -> Int {
        var count = 0
        for b in bytes[..<min(byteOffset, bytes.count)] where b & 0xC0 != 0x80 { count += 1 }
        return count
    }

    /// The source text of a token, shortened for messages.
    func text(of token: FilterToken) -> String {
        if token.kind == .end { return "end of input" }
        let limit = 40
        let slice = bytes[token.start..<min(token.end, token.start + limit)]
        var text = String(decoding: slice, as: UTF8.self)
        if token.end - token.start > limit { text += "…" }
        return text
    }

    // MARK: - Tokens

    private mutating func token(_ kind: FilterToken.Kind, from start: Int) -> FilterToken {
        while scalarsCountedTo < start {
            if bytes[scalarsCountedTo] & 0xC0 != 0x80 { scalarsCounted += 1 }
            scalarsCountedTo += 1
        }
        return FilterToken(kind: kind, start: start, end: index, position: scalarsCounted)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// A name, or `datetime'…'`, `datetimeoffset'…'`, `guid'…'` when the quote follows at once.
    private mutating func identifierOrPrefixedLiteral() throws(ODataQueryError) -> FilterToken {
        let start = index
        while index < bytes.count, Self.isIdentifierPart(bytes[index]) { index += 1 }
        let name = String(decoding: bytes[start..<index], as: UTF8.self)
        guard index < bytes.count, bytes[index] == UInt8(ascii: "'") else {
            return token(.identifier(name), from: start)
        }
        switch name {
        case "guid":
            return token(.string(try quoted(kind: "guid")), from: start)
        case "datetime", "datetimeoffset":
            let quoteStart = index
            let text = try quoted(kind: name)
            do throws(WireDateError) {
                return token(.date(try WireInstant.parse(text)), from: start)
            } catch {
                throw self.error(at: quoteStart + 1, "invalid \(name) literal: \(error.description)")
            }
        default:
            return token(.identifier(name), from: start)
        }
    }

    /// The content of a quoted literal starting at `index`, with `''` read as one quote.
    private mutating func quoted(kind: String) throws(ODataQueryError) -> String {
        let open = index
        index += 1
        var content: [UInt8] = []
        while index < bytes.count {
            let b = bytes[index]
            index += 1
            if b == UInt8(ascii: "'") {
                guard index < bytes.count, bytes[index] == UInt8(ascii: "'") else {
                    return String(decoding: content, as: UTF8.self)
                }
                index += 1
            }
            content.append(b)
        }
        throw error(at: open, "unterminated \(kind) literal: the quote here is never closed")
    }

    /// `digits [. digits] [e [+|-] digits] [suffix]` (§8.4), as a double.
    private mutating func number() throws(ODataQueryError) -> FilterToken {
        let start = index
        skipDigits()
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            isInteger = false
            guard skipDigits() > 0 else { throw badNumber(from: start) }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            isInteger = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard skipDigits() > 0 else { throw badNumber(from: start) }
        }
        let numberEnd = index
        if index < bytes.count {
            switch bytes[index] | 0x20 {
            case UInt8(ascii: "l") where isInteger: index += 1
            case UInt8(ascii: "m"), UInt8(ascii: "d"), UInt8(ascii: "f"): index += 1
            default: break
            }
        }
        if index < bytes.count, Self.isIdentifierPart(bytes[index]) || bytes[index] == UInt8(ascii: ".") {
            throw badNumber(from: start)
        }
        let text = String(decoding: bytes[start..<numberEnd], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw error(at: start, "the number '\(text)' does not fit a double")
        }
        return token(.number(value), from: start)
    }

    @discardableResult
    private mutating func skipDigits() -> Int {
        let start = index
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
        return index - start
    }

    private mutating func badNumber(from start: Int) -> ODataQueryError {
        while index < bytes.count, Self.isIdentifierPart(bytes[index]) || bytes[index] == UInt8(ascii: ".")
            || bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
        let text = String(decoding: bytes[start..<min(index, start + 40)], as: UTF8.self)
        return error(at: start, "invalid number '\(text)'")
    }

    /// The whole Unicode scalar starting at a byte offset, for messages.
    private func scalarText(at offset: Int) -> String {
        var end = offset + 1
        while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
        let scalar = String(decoding: bytes[offset..<end], as: UTF8.self)
        if let first = scalar.unicodeScalars.first, first.value < 0x20 || first.value == 0x7F {
            return "U+" + String(first.value, radix: 16, uppercase: true)
        }
        return scalar
    }

    static func isIdentifierStart(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
            || b == UInt8(ascii: "_")
    }

    static func isIdentifierPart(_ b: UInt8) -> Bool {
        isIdentifierStart(b) || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9"))
    }
}
