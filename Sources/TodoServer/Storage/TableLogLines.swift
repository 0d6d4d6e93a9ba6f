/// The lines of a log after its header, each classified: a record, a damaged record, or a torn tail.
///
/// The rule that tells a torn tail from damage (issue 17): records are appended one `pwrite` at a
/// time and each ends with its LF, so a crash during an append leaves a prefix of one record,
/// without its LF, at the very end of the file. A line that ends in LF was written whole; if its
/// CRC then fails, its bytes changed after they were written (bit rot, a bad sector, an editor):
/// that is damage, wherever it is, even as the last line. Nothing after the last LF is a record
/// yet: that is the torn tail.
enum TableLogLine {
    /// A line whose CRC verifies; `json` is its payload.
    case record(Range<Int>, json: ArraySlice<UInt8>)
    /// A whole line (LF included in the range) whose framing or CRC fails.
    case damaged(Range<Int>)
    /// The bytes after the last LF.
    case torn(Range<Int>)

    /// Visits the lines of `bytes` from `offset` (the start of a line) to the end.
    static func forEach<E: Error>(in bytes: [UInt8], from offset: Int, _ visit: (TableLogLine) throws(E) -> Void)
        throws(E)
    {
        var start = offset
        while start < bytes.count {
            guard let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) else {
                try visit(.torn(start..<bytes.count))
                return
            }
            if let json = TableLogFraming.payload(bytes, start, end) {
                try visit(.record(start..<(end + 1), json: json))
            } else {
                try visit(.damaged(start..<(end + 1)))
            }
            start = end + 1
        }
    }
}

/// The highest version and updatedAt that some bytes mention, read as text (`"version":N`,
/// `"updatedAt":N`), for bytes that are no longer whole records: a torn tail that is cut off, a
/// damaged record that repair moves aside. The version counter and the table's updatedAt must
/// resume above them, so that neither is handed out twice (issue 17).
///
/// A row record names its version twice (the row and the stamp), so one damaged byte cannot hide
/// it; a digit damaged into a larger number only skips versions, which is harmless. Inside JSON
/// strings a quote is escaped, so user text cannot look like these members.
struct MentionedStamp: Equatable {
    var version: UInt64?
    var updatedAt: Int64?

    init(version: UInt64? = nil, updatedAt: Int64? = nil) {
        self.version = version
        self.updatedAt = updatedAt
    }

    init(scanning bytes: ArraySlice<UInt8>) {
        for value in Self.numbers(after: Self.versionKey, in: bytes) where value >= 0 {
            version = max(version ?? 0, UInt64(value))
        }
        for value in Self.numbers(after: Self.updatedAtKey, in: bytes) {
            updatedAt = max(updatedAt ?? value, value)
        }
    }

    /// Both, each the larger one.
    func merged(_ other: MentionedStamp) -> MentionedStamp {
        MentionedStamp(version: [version, other.version].compactMap { $0 }.max(),
                       updatedAt: [updatedAt, other.updatedAt].compactMap { $0 }.max())
    }

    /// The stamp-only record that makes a table remember these values, when they are above what it
    /// remembers already; nil when they are not.
    func record(above memory: TableMemory) -> TableCommit? {
        let newVersion = (version ?? 0) > memory.lastVersion
        let newUpdatedAt = (updatedAt ?? .min) > memory.lastUpdatedAt
        guard newVersion || newUpdatedAt else { return nil }
        return TableCommit(stamp: TableStamp(version: max(version ?? 0, memory.lastVersion),
                                             updatedAt: max(updatedAt ?? .min, memory.lastUpdatedAt)))
    }

    private static let versionKey = Array(#""version":"#.utf8)
    private static let updatedAtKey = Array(#""updatedAt":"#.utf8)

    /// The integers (at most ±2^53, as the log writes them) that follow `key` in `bytes`.
    private static func numbers(after key: [UInt8], in bytes: ArraySlice<UInt8>) -> [Int64] {
        var found: [Int64] = []
        var i = bytes.startIndex
        while i + key.count <= bytes.endIndex {
            guard bytes[i..<(i + key.count)].elementsEqual(key) else {
                i += 1
                continue
            }
            var j = i + key.count
            let negative = j < bytes.endIndex && bytes[j] == UInt8(ascii: "-")
            if negative { j += 1 }
            var value: Int64 = 0, digits = 0
            while j < bytes.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[j]), digits < 17 {
                value = value * 10 + Int64(bytes[j] - UInt8(ascii: "0"))
                digits += 1
                j += 1
            }
            if digits > 0 && value <= TableLogCoder.maximumInteger { found.append(negative ? -value : value) }
            i = j
        }
        return found
    }
}
