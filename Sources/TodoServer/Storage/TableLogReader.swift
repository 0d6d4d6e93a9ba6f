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
}

enum TableLogReader {
    /// Replays `bytes` (the whole file at `path`). The header must be whole: logs are created by
    /// rename, never appended into existence. After it, the first line that is not a whole record
    /// ends the log if no whole record follows it: that is what a crash during an append leaves.
    /// A whole record after a damaged one means damage in the middle, which is an error.
    static func replay(_ bytes: [UInt8], path: String) throws(StorageError) -> ReplayedLog {
        guard let headerEnd = bytes.firstIndex(of: UInt8(ascii: "\n")),
              let headerJSON = TableLogFraming.payload(bytes, 0, headerEnd)
        else { throw StorageError(.corrupt, path: path, offset: 0, "the header record is damaged or missing") }
        let header: TableLogHeader
        do {
            header = try TableLogDecoder.header(headerJSON)
        } catch {
            throw StorageError(.corrupt, path: path, offset: 0, error.reason)
        }
        let memory = TableMemory(schema: TableSchema(name: header.table, softDelete: header.softDelete),
                                 lastVersion: header.lastVersion, lastUpdatedAt: header.lastUpdatedAt)
        var rowEntries = 0
        var offset = headerEnd + 1
        while offset < bytes.count {
            guard let end = bytes[offset...].firstIndex(of: UInt8(ascii: "\n")),
                  let json = TableLogFraming.payload(bytes, offset, end)
            else {
                if let later = firstWholeRecord(in: bytes, after: offset) {
                    throw StorageError(.corrupt, path: path, offset: offset,
                                       "damaged record (a whole record follows at byte \(later))")
                }
                break
            }
            do {
                let commit = try TableLogDecoder.commit(json)
                memory.apply(commit)
                rowEntries += commit.puts.count + commit.removals.count
            } catch {
                throw StorageError(.corrupt, path: path, offset: offset, error.reason)
            }
            offset = end + 1
        }
        return ReplayedLog(memory: memory, validLength: offset, rowEntries: rowEntries)
    }

    /// The offset of the first whole record that starts on a line after `offset`, if any.
    private static func firstWholeRecord(in bytes: [UInt8], after offset: Int) -> Int? {
        var start = bytes[offset...].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 }
        while let s = start, s < bytes.count {
            guard let end = bytes[s...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            if TableLogFraming.payload(bytes, s, end) != nil { return s }
            start = end + 1
        }
        return nil
    }
}
