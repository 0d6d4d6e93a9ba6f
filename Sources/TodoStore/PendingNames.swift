import TodoModel

/// A bucket or page of the index of pending operations (`PendingIndex`) as read: its bytes and
/// where each name sits in them, so that a local change updates the files it stages without a
/// String per name. At 100,000 pending operations a page held 1,000 names (76 KB): parsing two
/// pages into values, sorting their names as Strings and encoding them again was half of an
/// `edit`'s instructions (issue 21 item 3).
struct PendingNames {
    private let bytes: [UInt8]
    private let names: [Range<Int>]

    /// A file's names ([] for none), or nil when it is damaged. The JSON parser reads what the
    /// byte scan refuses (an escape, another layout), and decides.
    init?(_ read: [UInt8]?) {
        guard let read else {
            self.bytes = []
            self.names = []
            return
        }
        if let ranges = StringListScan.strings(read, member: "operations") {
            self.bytes = read
            self.names = ranges
            return
        }
        guard case .object(let object)? = try? JSONValue.parse(read), let list = object["operations"]?.arrayValue else { return nil }
        var bytes: [UInt8] = [], names: [Range<Int>] = []
        for entry in list {
            guard let name = entry.stringValue else { return nil }
            names.append(bytes.count..<(bytes.count + name.utf8.count))
            bytes.append(contentsOf: name.utf8)
        }
        self.bytes = bytes
        self.names = names
    }

    var strings: [String] { names.map { String(decoding: bytes[$0], as: UTF8.self) } }

    /// The names that end with `suffix` (an item's `.<table>.<enc>.json`), as Strings.
    func strings(endingWith suffix: String) -> [String] {
        let tail = Array(suffix.utf8)
        return names.filter { bytes[$0].count >= tail.count && bytes[$0].suffix(tail.count).elementsEqual(tail) }
            .map { String(decoding: bytes[$0], as: UTF8.self) }
    }

    /// What becomes of the file once `removed` is taken out and `added` put in.
    enum Update: Equatable {
        /// Its new bytes, the names in byte order, as `PendingIndex.json` writes them.
        case write([UInt8])
        /// No name is left: the file goes.
        case remove
        /// The same names (an operation rewritten under its name): the file stays as it is.
        case unchanged
        /// A name needs escaping: the caller encodes the names as values (`PendingIndex.json`).
        case encodeValues([String])
    }

    func updated(removing removed: Set<String>, adding added: Set<String>) -> Update {
        let gone = removed.map { Array($0.utf8) }
        let new = added.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
        var kept: [ArraySlice<UInt8>] = []
        kept.reserveCapacity(names.count + new.count)
        var next = 0, changed = false
        for range in names {
            let name = bytes[range]
            while next < new.count && new[next].lexicographicallyPrecedes(name) { kept.append(new[next][...]); next += 1; changed = true }
            if next < new.count && new[next].elementsEqual(name) {
                next += 1
            } else if gone.contains(where: { $0.elementsEqual(name) }) {
                changed = true
                continue
            }
            kept.append(name)
        }
        changed = changed || next < new.count
        while next < new.count { kept.append(new[next][...]); next += 1 }
        if !changed { return .unchanged }
        if kept.isEmpty { return .remove }
        guard kept.allSatisfy({ $0.allSatisfy(Self.isPlain) }) else {
            return .encodeValues(kept.map { String(decoding: $0, as: UTF8.self) })
        }
        var out = Array("{\n  \"operations\": [\n".utf8)
        out.reserveCapacity(kept.reduce(64) { $0 + $1.count + 8 })
        for (i, name) in kept.enumerated() {
            out.append(contentsOf: "    \"".utf8)
            out.append(contentsOf: name)
            out.append(contentsOf: i + 1 < kept.count ? "\",\n".utf8 : "\"\n".utf8)
        }
        out.append(contentsOf: "  ]\n}\n".utf8)
        return .write(out)
    }

    /// A byte written as it is between quotes: printable ASCII but a quote or a backslash
    /// (todo's own operation file names are all such bytes).
    static func isPlain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
    }
}
