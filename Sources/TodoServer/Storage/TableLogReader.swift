/// Frames records as lines and replays a log file into a `TableMemory`.
///
/// A line is `crc32-as-8-lowercase-hex SP json LF`, the CRC taken over the JSON bytes. JSON never
/// holds a raw LF (the writer escapes control characters), so LF ends a record unambiguously.
enum TableLogFraming {
    static func line(_ json: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(json.count + 10)
        let crc = StorageCRC32.checksum(json)
        for shift in stride(from: 28, through: 0, by: -4) { out.append(hexDigits[Int((crc >> UInt32(shift)) & 0xF)]) }
        out.append(UInt8(ascii: " "))
        out.append(contentsOf: json)
        out.append(UInt8(ascii: "\n"))
        return out
    }

    /// The JSON of the line `bytes[start..<end]` (end excludes the LF), or nil when the line is not a
    /// whole record (torn, damaged, or not a record at all).
    static func payload(_ bytes: [UInt8], _ start: Int, _ end: Int) -> ArraySlice<UInt8>? {
        guard end - start >= 10, bytes[start + 8] == UInt8(ascii: " ") else { return nil }
        var expected: UInt32 = 0
        for i in start..<(start + 8) {
            guard let digit = hexValue(bytes[i]) else { return nil }
            expected = expected << 4 | digit
        }
        let json = bytes[(start + 9)..<end]
        return StorageCRC32.checksum(json) == expected ? json : nil
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func hexValue(_ b: UInt8) -> UInt32? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(b - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(b - UInt8(ascii: "a") + 10)
        default: return nil
        }
    }
}

/// The outcome of replaying one log file.
struct ReplayedLog {
    var memory: TableMemory
    /// Bytes of whole records; anything after is a torn tail that the caller cuts off.
    var validLength: Int
    /// Row puts and removals in the file, to decide when compaction pays.
    var rowEntries: Int
    /// What the torn tail mentions (see `MentionedStamp`): the caller records it before the cut.
    var tornTail = MentionedStamp()
}

enum TableLogReader {
    /// Replays `bytes` (the whole file at `path`). The header must be whole: logs are created by
    /// rename, never appended into existence. Then every line must be a record that verifies and
    /// decodes, except the torn tail after the last LF (see `TableLogLine` for the rule). Damage
    /// is an error naming the file and offset, and pointing to `todo-server check` and `repair`.
    static func replay(_ bytes: [UInt8], path: String) throws(StorageError) -> ReplayedLog {
        let (header, headerEnd) = try readHeader(bytes, path: path)
        let memory = header.memory()
        var replayed = ReplayedLog(memory: memory, validLength: headerEnd, rowEntries: 0)
        try TableLogLine.forEach(in: bytes, from: headerEnd) { line throws(StorageError) in
            switch line {
            case .record(let range, let json):
                let commit: TableCommit
                do throws(TableLogDecoder.Failure) {
                    commit = try TableLogDecoder.commit(json)
                } catch {
                    throw StorageError(.corrupt, path: path, offset: range.lowerBound,
                                       "a record that does not decode (\(error.reason))")
                }
                memory.apply(commit)
                replayed.rowEntries += commit.puts.count + commit.removals.count
                replayed.validLength = range.upperBound
            case .damaged(let range):
                throw StorageError(.corrupt, path: path, offset: range.lowerBound,
                                   "damaged record of \(range.count) bytes: its CRC-32 does not match, yet it is "
                                       + "whole (it ends in a newline), so it was written and acknowledged, "
                                       + "then changed on disk")
            case .torn(let range):
                replayed.tornTail = MentionedStamp(scanning: bytes[range])
            }
        }
        return replayed
    }

    /// The header record and the offset after it.
    static func readHeader(_ bytes: [UInt8], path: String) throws(StorageError) -> (TableLogHeader, Int) {
        guard let headerEnd = bytes.firstIndex(of: UInt8(ascii: "\n")),
              let headerJSON = TableLogFraming.payload(bytes, 0, headerEnd)
        else { throw StorageError(.corrupt, path: path, offset: 0, "the header record is damaged or missing") }
        do {
            return (try TableLogDecoder.header(headerJSON), headerEnd + 1)
        } catch {
            throw StorageError(.corrupt, path: path, offset: 0, error.reason)
        }
    }
}
