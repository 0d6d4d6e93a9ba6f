/// Why a message could not be parsed: the status a server answers with, and a message for people.
struct HTTPParseFailure: Error, Equatable {
    var status: Int
    var message: String

    static func malformed(_ message: String) -> HTTPParseFailure {
        HTTPParseFailure(status: 400, message: message)
    }
}

/// The header facts that decide framing and connection handling.
///
/// Collected while each field line is parsed, so the parsers never make a second pass over the
/// headers and repeated fields (`Content-Length: 5` twice) are checked as they arrive.
struct HTTPFramingFacts {
    var contentLength: Int?
    var hasTransferEncoding = false
    /// Lowercased codings in order, e.g. `["gzip", "chunked"]`.
    var transferCodings: [String] = []
    var connectionClose = false
    var connectionKeepAlive = false
    var expectContinue = false

    /// Whether the codings are exactly `chunked`, the only one this codec decodes.
    var isChunkedOnly: Bool { transferCodings == ["chunked"] }
}

/// Parses one field line (`name: value`, line ending already removed) into `headers` and `facts`.
///
/// Strict where leniency enables request smuggling (RFC 9112 §5): no whitespace before the colon, no
/// obsolete line folding, no control characters. Values are trimmed and decoded as UTF-8; stray
/// obs-text bytes become U+FFFD rather than failing the request.
enum HTTPFieldLineParser {
    private static let contentLength = Array("content-length".utf8)
    private static let transferEncoding = Array("transfer-encoding".utf8)
    private static let connection = Array("connection".utf8)
    private static let expect = Array("expect".utf8)
    private static let close = Array("close".utf8)
    private static let keepAliveToken = Array("keep-alive".utf8)
    private static let continueToken = Array("100-continue".utf8)

    /// `what` names the section in messages ("header" or "trailer"); `lineNumber` counts the start line as 1.
    /// `previous`: the fields of the connection's previous message, whose strings are reused for
    /// a name or value of the same bytes at the same position (pipelined requests repeat their
    /// fields: decoding them again, a heap string for most, was a third of a request's parsing).
    static func parse(
        _ line: ArraySlice<UInt8>, lineNumber: Int, what: String,
        into headers: inout HTTPHeaders, facts: inout HTTPFramingFacts, previous: HTTPHeaders? = nil
    ) throws(HTTPParseFailure) {
        func problem(_ detail: String) -> HTTPParseFailure {
            HTTPParseFailure.malformed("malformed \(what) line \(lineNumber): \(detail)")
        }
        guard let first = line.first else { throw problem("empty line") }
        if HTTPSyntax.isWhitespace(first) {
            throw problem("obsolete line folding (a line starting with whitespace) is not allowed")
        }
        // Scans on the contiguous bytes: through the slice's checked indices a header line cost
        // about 20 instructions a byte.
        let index = line.startIndex + line.withUnsafeBufferPointer { bytes in
            var i = 0
            while i < bytes.count, HTTPSyntax.isTokenByte(bytes[i]) { i += 1 }
            return i
        }
        guard index < line.endIndex else { throw problem("missing ':'") }
        let byte = line[index]
        if byte != HTTPSyntax.colon {
            if HTTPSyntax.isWhitespace(byte) { throw problem("whitespace before ':'") }
            throw problem("invalid character \(HTTPSyntax.quoted(line[index...index])) in field name")
        }
        guard index > line.startIndex else { throw problem("empty field name") }
        let nameBytes = line[line.startIndex..<index]
        let valueBytes = HTTPSyntax.trimmed(line[(index + 1)...])
        if let bad = valueBytes.withUnsafeBufferPointer({ $0.firstIndex { !HTTPSyntax.isFieldValueByte($0) } }) {
            throw problem("invalid character \(HTTPSyntax.quoted([valueBytes[valueBytes.startIndex + bad]][...])) in field value")
        }
        try record(nameBytes, valueBytes, facts: &facts, problem: problem)
        let position = headers.count
        let earlier = previous.flatMap { position < $0.count ? $0[position] : nil }
        headers.add(
            name: HTTPSyntax.string(nameBytes, reusing: earlier?.name),
            value: HTTPSyntax.string(valueBytes, reusing: earlier?.value))
    }

    private static func record(
        _ name: ArraySlice<UInt8>, _ value: ArraySlice<UInt8>, facts: inout HTTPFramingFacts,
        problem: (String) -> HTTPParseFailure
    ) throws(HTTPParseFailure) {
        switch name.count {
        case 14 where HTTPSyntax.matches(name, lowercasedName: contentLength):
            // A list of identical values ("5, 5", or the field repeated) is one length (RFC 9112 §6.3).
            let elements = value.split(separator: HTTPSyntax.comma, omittingEmptySubsequences: false)
            for element in elements {
                guard let length = HTTPSyntax.decimalValue(HTTPSyntax.trimmed(element)) else {
                    throw problem("invalid Content-Length \(HTTPSyntax.quoted(value))")
                }
                if let known = facts.contentLength, known != length {
                    throw problem("conflicting Content-Length values")
                }
                facts.contentLength = length
            }
        case 17 where HTTPSyntax.matches(name, lowercasedName: transferEncoding):
            facts.hasTransferEncoding = true
            for coding in HTTPSyntax.listElements(value) {
                facts.transferCodings.append(String(decoding: coding.map(HTTPSyntax.lowercased), as: UTF8.self))
            }
        case 10 where HTTPSyntax.matches(name, lowercasedName: connection):
            for token in HTTPSyntax.listElements(value) {
                if HTTPSyntax.matches(token, lowercasedName: close) { facts.connectionClose = true }
                if HTTPSyntax.matches(token, lowercasedName: keepAliveToken) { facts.connectionKeepAlive = true }
            }
        case 6 where HTTPSyntax.matches(name, lowercasedName: expect):
            if HTTPSyntax.matches(value, lowercasedName: continueToken) { facts.expectContinue = true }
        default:
            break
        }
    }
}
