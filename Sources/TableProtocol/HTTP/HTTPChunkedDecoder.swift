/// Incremental decoder for the chunked transfer coding (RFC 9112 §7.1).
///
/// Works on whatever part of the body has arrived and resumes where it stopped. Chunk extensions
/// are ignored; trailer fields are checked for syntax, then dropped (nothing here needs them).
struct HTTPChunkedDecoder {
    /// Longest chunk-size line, extensions included. Real ones are a few bytes.
    static let maxSizeLineBytes = 4096

    private enum Stage {
        case sizeLine
        case data(remaining: Int)
        case dataEnd
        case trailers
    }

    private var stage = Stage.sizeLine
    private var lines = HTTPLineReader()
    private var trailerBytes = 0
    /// Counted from 1 within the trailer section, for messages.
    private var trailerLine = 0

    enum Outcome {
        case needMore
        case done
    }

    /// Decodes from `buffer` into `body` until the body ends or the input runs out.
    mutating func decode(_ buffer: inout HTTPInputBuffer, into body: inout [UInt8], limits: HTTPLimits) throws(HTTPParseFailure) -> Outcome {
        while true {
            switch stage {
            case .sizeLine:
                switch lines.next(in: buffer) {
                case .partial(let length):
                    if length > Self.maxSizeLineBytes { throw .malformed("chunk size line is too long") }
                    return .needMore
                case .line(let content, let length):
                    if length > Self.maxSizeLineBytes { throw .malformed("chunk size line is too long") }
                    let size = try Self.chunkSize(buffer.slice(content))
                    buffer.consume(length)
                    if size == 0 {
                        stage = .trailers
                        trailerLine = 1
                    } else if size > limits.maxBodyBytes - body.count {
                        throw HTTPParseFailure(
                            status: 413, message: "chunked body exceeds the limit of \(limits.maxBodyBytes) bytes")
                    } else {
                        stage = .data(remaining: size)
                    }
                }
            case .data(let remaining):
                let available = min(remaining, buffer.readableCount)
                if available > 0 {
                    body.append(contentsOf: buffer.slice(0..<available))
                    buffer.consume(available)
                }
                if available < remaining {
                    stage = .data(remaining: remaining - available)
                    return .needMore
                }
                stage = .dataEnd
            case .dataEnd:
                guard buffer.readableCount > 0 else { return .needMore }
                if buffer[0] == HTTPSyntax.lf {
                    buffer.consume(1)
                } else if buffer[0] == HTTPSyntax.cr {
                    guard buffer.readableCount > 1 else { return .needMore }
                    guard buffer[1] == HTTPSyntax.lf else { throw .malformed("chunk data is not followed by CRLF") }
                    buffer.consume(2)
                } else {
                    throw .malformed("chunk data is longer than its declared size")
                }
                stage = .sizeLine
            case .trailers:
                switch lines.next(in: buffer) {
                case .partial(let length):
                    try checkTrailerSize(trailerBytes + length, limits: limits)
                    return .needMore
                case .line(let content, let length):
                    trailerBytes += length
                    try checkTrailerSize(trailerBytes, limits: limits)
                    let line = buffer.slice(content)
                    if line.isEmpty {
                        buffer.consume(length)
                        return .done
                    }
                    var ignored = HTTPHeaders()
                    var ignoredFacts = HTTPFramingFacts()
                    try HTTPFieldLineParser.parse(
                        line, lineNumber: trailerLine, what: "trailer", into: &ignored, facts: &ignoredFacts)
                    trailerLine += 1
                    buffer.consume(length)
                }
            }
        }
    }

    private func checkTrailerSize(_ bytes: Int, limits: HTTPLimits) throws(HTTPParseFailure) {
        if bytes > limits.maxHeaderBytes {
            throw HTTPParseFailure(
                status: 431, message: "trailer section exceeds the limit of \(limits.maxHeaderBytes) bytes")
        }
    }

    /// `chunk-size [ BWS ";" extensions ]`. Sizes too large for `Int` saturate; the limit then rejects them.
    private static func chunkSize(_ line: ArraySlice<UInt8>) throws(HTTPParseFailure) -> Int {
        var index = line.startIndex
        var size = 0
        while index < line.endIndex, let digit = HTTPSyntax.hexValue(line[index]) {
            size = size > (Int.max >> 4) ? Int.max : size << 4 | digit
            index += 1
        }
        guard index > line.startIndex else {
            throw .malformed("invalid chunk size \(HTTPSyntax.quoted(line))")
        }
        while index < line.endIndex, HTTPSyntax.isWhitespace(line[index]) { index += 1 }
        if index < line.endIndex {
            guard line[index] == HTTPSyntax.semicolon else {
                throw .malformed("invalid chunk size \(HTTPSyntax.quoted(line))")
            }
            for byte in line[index...] where !HTTPSyntax.isFieldValueByte(byte) {
                throw .malformed("invalid character in chunk extension")
            }
        }
        return size
    }
}
