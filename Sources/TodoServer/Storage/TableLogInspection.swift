/// One log read the way `todo-server check` and `repair` read it: every problem, not just the first.
///
/// Start-up stops at the first damaged record (`TableLogReader`); an operator needs to see all of
/// them, and repair needs to know which records verify. The rule is the same (`TableLogLine`):
/// a whole line that fails its CRC, or verifies but does not decode, is damage; the bytes after
/// the last newline are a torn tail.
struct TableLogInspection {
    struct Damage {
        var range: Range<Int>
        var reason: String
    }

    let path: String
    let size: Int
    /// The header's line, or nil when it is damaged (`headerProblem` says how).
    var header: (record: TableLogHeader, range: Range<Int>)?
    var headerProblem: String?
    /// Records that verify and decode, in order.
    var records: [Range<Int>] = []
    var damaged: [Damage] = []
    var torn: Range<Int>?
    /// The table as its records that verify leave it.
    var memory: TableMemory?
    /// The highest stamps the damaged and torn bytes mention (see `MentionedStamp`).
    var mentioned = MentionedStamp()

    /// Start-up would open it: a whole header and no damage (a torn tail is cut off).
    var opens: Bool { header != nil && damaged.isEmpty }

    init(_ bytes: [UInt8], path: String) {
        self.path = path
        size = bytes.count
        let headerEnd: Int
        do {
            let (record, end) = try TableLogReader.readHeader(bytes, path: path)
            let key = String(path.lastPathComponent.dropLast(TableLogFile.suffix.count))
            guard record.table.lowercased() == key else {
                headerProblem = "it names table '\(record.table)', not '\(key)'"
                return
            }
            header = (record, 0..<end)
            headerEnd = end
        } catch {
            headerProblem = error.message
            return
        }
        let record = header!.record
        let memory = record.memory()
        TableLogLine.forEach(in: bytes, from: headerEnd) { line in
            switch line {
            case .record(let range, let json):
                do throws(TableLogDecoder.Failure) {
                    memory.apply(try TableLogDecoder.commit(json))
                    records.append(range)
                } catch {
                    damaged.append(Damage(range: range, reason: "it does not decode: \(error.reason)"))
                    mentioned = mentioned.merged(MentionedStamp(scanning: bytes[range]))
                }
            case .damaged(let range):
                damaged.append(Damage(range: range, reason: "its CRC-32 does not match its bytes"))
                mentioned = mentioned.merged(MentionedStamp(scanning: bytes[range]))
            case .torn(let range):
                torn = range
                mentioned = mentioned.merged(MentionedStamp(scanning: bytes[range]))
            }
        }
        self.memory = memory
    }

    /// "1 record verifies", "3 records verify".
    static func verifying(_ count: Int) -> String { count == 1 ? "1 record verifies" : "\(count) records verify" }

    /// What `check` prints for this log: a summary line, then one line per problem.
    var report: [String] {
        let name = path.lastPathComponent
        guard header != nil else {
            return ["\(name): the header (byte 0) is damaged: \(headerProblem ?? "unreadable"); repair cannot tell "
                + "the table's settings without it: restore this file from a backup"]
        }
        var lines = ["\(name): \(Self.verifying(records.count)), \(size) bytes"
            + (opens && torn == nil ? ": ok" : "")]
        for damage in damaged {
            lines.append("  damaged record at byte \(damage.range.lowerBound) (\(damage.range.count) bytes): "
                + "\(damage.reason); it ends in a newline, so it was written whole and acknowledged, then changed")
        }
        if let torn {
            lines.append("  torn tail at byte \(torn.lowerBound) (\(torn.count) bytes, no final newline): an append "
                + "a crash cut short, never acknowledged; start-up cuts it off")
        }
        return lines
    }
}
