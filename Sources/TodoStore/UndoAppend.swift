import TodoModel

/// A local change's record added to `undo.json` as bytes: the records already there are kept as
/// they are on disk, not decoded and encoded again. Its 20 records (16 KB) went through the JSON
/// parser, the decoders and the writer at every `add`, `edit`, `done` and `rm`: 15% of an
/// `edit`'s instructions (issue 21 item 3). Only a file laid out exactly as `UndoFile` writes it
/// is taken this way; any other (damaged JSON, edited by hand, another format) is decoded as
/// before and its problems reported as before. A well-formed change with wrong fields is kept as
/// it is: `todo undo` and `doctor` decode every change and report it.
enum UndoAppend {
    static let head = Array("{\n  \"changes\": [".utf8)
    static let tail = Array(",\n  \"format\": 1\n}\n".utf8)
    static let separator = Array(",\n    ".utf8)

    /// `undo.json` with `record` as its newest change and at most `UndoLog.limit` changes; nil
    /// when `bytes` are not as `UndoFile` writes them.
    static func appending(_ record: UndoRecord, to bytes: [UInt8]) -> [UInt8]? {
        guard let changes = changes(bytes) else { return nil }
        var out = head
        out.reserveCapacity(bytes.count + 2048)
        for range in changes.suffix(UndoLog.limit - 1) {
            out.append(contentsOf: out.count == head.count ? Array("\n    ".utf8) : separator)
            out.append(contentsOf: bytes[range])
        }
        out.append(contentsOf: out.count == head.count ? Array("\n    ".utf8) : separator)
        out.append(contentsOf: UndoFile.json(record).canonicalBytes(nestedAt: 2))
        out.append(contentsOf: "\n  ]".utf8)
        out.append(contentsOf: tail)
        return out
    }

    /// Where each change sits in the file, or nil when the file has another layout.
    static func changes(_ b: [UInt8]) -> [Range<Int>]? {
        guard b.starts(with: head) else { return nil }
        var i = head.count
        var found: [Range<Int>] = []
        if b[i...].starts(with: "]".utf8) {
            i += 1
        } else {
            var lead = Array("\n    ".utf8)
            while true {
                guard b[i...].starts(with: lead), i + lead.count < b.count, b[i + lead.count] == UInt8(ascii: "{") else { return nil }
                let start = i + lead.count
                guard let end = endOfObject(b, from: start) else { return nil }
                found.append(start..<end)
                i = end
                if b[i...].starts(with: "\n  ]".utf8) { i += 4; break }
                guard b[i...].starts(with: ",".utf8) else { return nil }
                i += 1
                lead = Array("\n    ".utf8)
            }
        }
        guard b.count - i == tail.count, b[i...].elementsEqual(tail) else { return nil }
        return found
    }

    /// Just past the object that starts at `start` (its closing brace), strings and escapes
    /// skipped; nil when the file ends first.
    private static func endOfObject(_ b: [UInt8], from start: Int) -> Int? {
        var depth = 0, i = start, inString = false
        while i < b.count {
            let c = b[i]
            if inString {
                if c == UInt8(ascii: "\\") { i += 2; continue }
                if c == UInt8(ascii: "\"") { inString = false }
            } else if c == UInt8(ascii: "\"") {
                inString = true
            } else if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") {
                depth += 1
            } else if c == UInt8(ascii: "}") || c == UInt8(ascii: "]") {
                depth -= 1
                if depth == 0 { return i + 1 }
            }
            i += 1
        }
        return nil
    }
}

extension StoreTransaction {
    /// Stages `undo.json` with `record` added (`UndoAppend`), read from `store`.
    public mutating func addUndoRecord(_ record: UndoRecord, in store: Store) throws(StoreError) {
        let bytes: [UInt8]?
        do { bytes = try store.fs.readFile(store.layout.absolute(StoreLayout.undoFile)) } catch { throw .io(error) }
        if let bytes, let appended = UndoAppend.appending(record, to: bytes) {
            putEncoded(StoreLayout.undoFile, appended)
        } else {
            putUndoLog(try store.undoLog().adding(record))
        }
    }
}
