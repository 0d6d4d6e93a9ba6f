/// Reads `method SP request-target SP HTTP-version` one byte at a time, resuming where it stopped.
///
/// Byte at a time, rather than line at a time, so every check fires at the same byte however the
/// input was split: an over-long target is a 414 as soon as byte 16,385 of it arrives, not when
/// (if ever) the line ends, and garbage is rejected at its first bad byte.
struct HTTPRequestLineScanner {
    /// Longest method accepted. Real ones are at most 7 bytes; the cap stops an endless "method".
    static let maxMethodBytes = 32
    /// Empty lines tolerated before a request line (RFC 9112 §2.2: a stray CRLF after a body).
    static let maxLeadingEmptyLines = 4

    private enum Stage {
        case leading, leadingCR, method, target, version, versionCR
    }

    private var stage = Stage.leading
    /// Relative offset of the next byte to look at; bytes before it are part of this line.
    private var offset = 0
    private var methodEnd = 0
    private var targetEnd = 0
    private var versionEnd = 0
    private var emptyLines = 0

    struct Line {
        var method: String
        var target: String
        var version: HTTPVersion
    }

    /// True once a byte of a request line has been seen (leading empty lines do not count).
    var hasStarted: Bool { stage != .leading }

    /// Scans what is buffered. Returns the line and consumes it once complete; nil when more is needed.
    /// `previous`: the connection's last request line, whose method and target strings are reused
    /// when this line spells them with the same bytes (`HTTPSyntax.string(_:reusing:)`).
    mutating func scan(_ buffer: inout HTTPInputBuffer, limits: HTTPLimits,
                       previous: Line? = nil) throws(HTTPParseFailure) -> Line? {
        while offset < buffer.readableCount {
            let byte = buffer[offset]
            switch stage {
            case .leading:
                if byte == HTTPSyntax.lf {
                    try skipEmptyLine(&buffer, length: 1)
                } else if byte == HTTPSyntax.cr {
                    stage = .leadingCR
                    offset += 1
                } else {
                    stage = .method
                }
            case .leadingCR:
                guard byte == HTTPSyntax.lf else { throw .malformed("malformed request line: CR not followed by LF") }
                try skipEmptyLine(&buffer, length: 2)
            case .method:
                if HTTPSyntax.isTokenByte(byte) {
                    offset += 1
                    if offset > Self.maxMethodBytes {
                        throw .malformed("malformed request line: method longer than \(Self.maxMethodBytes) bytes")
                    }
                } else if byte == HTTPSyntax.space && offset > 0 {
                    methodEnd = offset
                    offset += 1
                    stage = .target
                } else {
                    throw .malformed(offset == 0
                        ? "malformed request line: it does not start with a method"
                        : "malformed request line: invalid character \(HTTPSyntax.quoted([byte][...])) in method")
                }
            case .target:
                if HTTPSyntax.isTargetByte(byte) {
                    offset += 1
                    if offset - methodEnd - 1 > limits.maxTargetBytes {
                        throw HTTPParseFailure(
                            status: 414, message: "request target exceeds the limit of \(limits.maxTargetBytes) bytes")
                    }
                } else if byte == HTTPSyntax.space && offset > methodEnd + 1 {
                    targetEnd = offset
                    offset += 1
                    stage = .version
                } else if byte == HTTPSyntax.space {
                    throw .malformed("malformed request line: expected one space between method and target")
                } else if byte == HTTPSyntax.cr || byte == HTTPSyntax.lf {
                    throw .malformed("malformed request line: missing HTTP version")
                } else {
                    throw .malformed("malformed request line: invalid character \(HTTPSyntax.quoted([byte][...])) in target")
                }
            case .version:
                if byte == HTTPSyntax.cr || byte == HTTPSyntax.lf {
                    versionEnd = offset
                    offset += 1
                    if byte == HTTPSyntax.lf { return try finish(&buffer, previous) }
                    stage = .versionCR
                } else {
                    offset += 1
                    if offset - targetEnd - 1 > 8 { throw unsupportedVersion(buffer, end: offset) }
                }
            case .versionCR:
                guard byte == HTTPSyntax.lf else { throw .malformed("malformed request line: CR not followed by LF") }
                offset += 1
                return try finish(&buffer, previous)
            }
        }
        return nil
    }

    private mutating func skipEmptyLine(_ buffer: inout HTTPInputBuffer, length: Int) throws(HTTPParseFailure) {
        emptyLines += 1
        if emptyLines > Self.maxLeadingEmptyLines {
            throw .malformed("too many empty lines before the request line")
        }
        buffer.consume(length)
        offset = 0
        stage = .leading
    }

    private mutating func finish(_ buffer: inout HTTPInputBuffer, _ previous: Line?) throws(HTTPParseFailure) -> Line {
        let versionBytes = buffer.slice((targetEnd + 1)..<versionEnd)
        let version: HTTPVersion
        if versionBytes.elementsEqual("HTTP/1.1".utf8) {
            version = .http1_1
        } else if versionBytes.elementsEqual("HTTP/1.0".utf8) {
            version = .http1_0
        } else {
            throw unsupportedVersion(buffer, end: versionEnd)
        }
        let line = Line(
            method: HTTPSyntax.string(buffer.slice(0..<methodEnd), reusing: previous?.method),
            target: HTTPSyntax.string(buffer.slice((methodEnd + 1)..<targetEnd), reusing: previous?.target),
            version: version)
        buffer.consume(offset)
        self = HTTPRequestLineScanner()
        return line
    }

    private func unsupportedVersion(_ buffer: HTTPInputBuffer, end: Int) -> HTTPParseFailure {
        .malformed("unsupported HTTP version \(HTTPSyntax.quoted(buffer.slice((targetEnd + 1)..<end)))")
    }
}
