/// Bytes received but not yet consumed by a parser.
///
/// Consuming only moves `readIndex`; the consumed prefix is dropped lazily, when appending and only
/// once it is at least as large as what remains, so each byte is moved at most once on average.
/// Parsers keep positions *relative to `readIndex`* so dropping the prefix never invalidates them.
struct HTTPInputBuffer {
    private(set) var bytes: [UInt8] = []
    private(set) var readIndex = 0

    var readableCount: Int { bytes.count - readIndex }

    mutating func append(_ new: UnsafeBufferPointer<UInt8>) {
        compactIfCheap()
        bytes.append(contentsOf: new)
    }

    /// The readable byte at `offset` from the read position.
    @inline(__always)
    subscript(offset: Int) -> UInt8 {
        bytes[readIndex + offset]
    }

    /// Readable bytes `range` (relative offsets), sharing storage.
    func slice(_ range: Range<Int>) -> ArraySlice<UInt8> {
        bytes[(readIndex + range.lowerBound)..<(readIndex + range.upperBound)]
    }

    mutating func consume(_ count: Int) {
        readIndex += count
    }

    /// Relative offset of the first LF at or after relative offset `start`.
    func firstLineFeed(from start: Int) -> Int? {
        bytes.withUnsafeBufferPointer { buffer in
            var index = readIndex + start
            let end = buffer.count
            while index < end {
                if buffer[index] == HTTPSyntax.lf { return index - readIndex }
                index += 1
            }
            return nil
        }
    }

    /// Frees everything, for a parser that has failed and will read no more.
    mutating func release() {
        bytes = []
        readIndex = 0
    }

    private mutating func compactIfCheap() {
        guard readIndex > 0 else { return }
        if readIndex == bytes.count {
            bytes.removeAll(keepingCapacity: true)
            readIndex = 0
        } else if readIndex >= 4096 && readIndex >= bytes.count - readIndex {
            bytes.removeSubrange(0..<readIndex)
            readIndex = 0
        }
    }
}

extension Collection<UInt8> {
    /// Calls `body` with contiguous bytes, copying only when the collection has no contiguous storage.
    /// Keeps `feed(_:)` fast when called unspecialized from another module.
    func withHTTPContiguousBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = withContiguousStorageIfAvailable(body) { return result }
        return Array(self).withUnsafeBufferPointer(body)
    }
}
