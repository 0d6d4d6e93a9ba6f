/// One row of the text form on its way through the sorts: what the printer needs, as bytes.
struct ListRow: Equatable {
    var id: String
    var done: Bool
    /// The kind of the item's last pending operation, "" when none.
    var pending: String
    var edited: Bool
    /// One per column (`ListColumn`); "" for the id and done columns, drawn by the printer.
    var cells: [String]
    /// Set once the ids are known (`ListPipeline`): the short id and how many of its characters
    /// no other id shares (highlighted on a terminal).
    var shortID: String = ""
    var unique: Int = 0

    /// Strings, each after its length in 4 bytes.
    func encoded() -> [UInt8] {
        var out: [UInt8] = []
        for part in [id, done ? "1" : "0", pending, edited ? "1" : "0", shortID, String(unique)] + cells {
            let n = part.utf8.count
            for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: n >> shift)) }
            out.append(contentsOf: part.utf8)
        }
        return out
    }

    init(id: String, done: Bool, pending: String, edited: Bool, cells: [String]) {
        self.id = id
        self.done = done
        self.pending = pending
        self.edited = edited
        self.cells = cells
    }

    init(decoding bytes: [UInt8]) {
        var parts: [String] = []
        var i = 0
        while i + 4 <= bytes.count {
            var n = 0
            for b in 0..<4 { n |= Int(bytes[i + b]) << (8 * b) }
            i += 4
            parts.append(String(decoding: bytes[i..<min(bytes.count, i + n)], as: UTF8.self))
            i += n
        }
        while parts.count < 6 { parts.append("") }
        id = parts[0]
        done = parts[1] == "1"
        pending = parts[2]
        edited = parts[3] == "1"
        shortID = parts[4]
        unique = Int(parts[5]) ?? 0
        cells = Array(parts[6...])
    }
}
