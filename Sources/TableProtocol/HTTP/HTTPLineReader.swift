/// Finds the next complete line in a buffer, remembering how far it already searched.
///
/// Without the memory, a long line arriving one byte per read would be searched again from its start
/// on every read (quadratic). Lines end at LF; a CR right before the LF is part of the line ending,
/// so both CRLF and a bare LF are accepted (RFC 9112 §2.2 allows the lenient reading). A CR anywhere
/// else stays in the line, where the callers reject it as a control character.
struct HTTPLineReader {
    /// Readable bytes already searched for LF without finding one.
    private var searched = 0

    enum Result {
        /// `content` excludes the line ending; `length` includes it and is what to consume.
        case line(content: Range<Int>, length: Int)
        /// No LF yet; `length` readable bytes belong to the unfinished line.
        case partial(length: Int)
    }

    mutating func next(in buffer: HTTPInputBuffer) -> Result {
        guard let lineFeed = buffer.firstLineFeed(from: searched) else {
            searched = buffer.readableCount
            return .partial(length: searched)
        }
        searched = 0
        var end = lineFeed
        if end > 0 && buffer[end - 1] == HTTPSyntax.cr { end -= 1 }
        return .line(content: 0..<end, length: lineFeed + 1)
    }

    mutating func reset() {
        searched = 0
    }
}
