import TodoBasics
import TodoModel

/// `todo-server repair` for one log: keeps every record that verifies, moves the rest aside.
///
/// Nothing is deleted: the damaged lines and the torn tail go, byte for byte and in order, to a new
/// file beside the log, `<table>.log.damaged.<n>`, made durable before the log changes. The log is
/// then rewritten like a compaction (temporary file, fsync, rename, fsync of the directory) as its
/// header, every record that verifies, and, when needed, one more record that keeps what the
/// removed bytes taught the table:
/// - the highest version and updatedAt they mention (`MentionedStamp`), so neither is handed out
///   again (issue 17: the lost row's version was acknowledged, and a client may hold it);
/// - the type of every column a kept row has but no kept record declared (its declaration may
///   have been in a removed record), taken from the row's values as a write would.
/// A crash before the rename leaves the old log, and running repair again redoes the work.
enum TableLogRepair {
    /// What happened to one log, for the operator.
    struct Outcome {
        var lines: [String]
        /// The log opens now.
        var repaired: Bool
    }

    static func repair(_ inspection: TableLogInspection, bytes: [UInt8]) throws(StorageError) -> Outcome {
        let name = inspection.path.lastPathComponent
        guard let header = inspection.header, let memory = inspection.memory else {
            return Outcome(lines: inspection.report, repaired: false)
        }
        let removed = inspection.damaged.map(\.range) + (inspection.torn.map { [$0] } ?? [])
        guard !removed.isEmpty else { return Outcome(lines: ["\(name): ok, nothing to do"], repaired: true) }

        let asidePath = try freeAsidePath(for: inspection.path)
        try writeDurably(removed.flatMap { bytes[$0] }, to: asidePath)

        var log = Array(bytes[header.range])
        for range in inspection.records { log += bytes[range] }
        var final = inspection.mentioned.record(above: memory) ?? TableCommit()
        final.columns = undeclaredColumns(memory)
        if !final.isEmpty { log += TableLogFraming.line(try TableLogCoder.encode(.commit(final))) }
        var file = try TableLogFile.createTemporary(for: inspection.path, io: SystemLogFileIO())
        do {
            try file.append(log)
            try file.sync()
            try file.install(as: inspection.path)
        } catch {
            file.close()
            throw error
        }
        file.close()

        var moved: [String] = []
        let damagedCount = inspection.damaged.count
        if damagedCount > 0 {
            let at = inspection.damaged.map { "byte \($0.range.lowerBound)" }.joined(separator: ", ")
            moved.append("\(damagedCount) damaged record\(damagedCount == 1 ? "" : "s") (at \(at))")
        }
        if let torn = inspection.torn { moved.append("a torn tail of \(torn.count) bytes (at byte \(torn.lowerBound))") }
        let kept = inspection.records.count
        var line = "\(name): kept \(kept) record\(kept == 1 ? "" : "s") (all that verify); moved "
            + moved.joined(separator: " and ") + " to '\(asidePath.lastPathComponent)' (\(removed.map(\.count).reduce(0, +)) bytes)"
        if let stamp = final.stamp { line += "; versions resume above \(stamp.version)" }
        if !final.columns.isEmpty { line += "; declared columns \(final.columns.map { "'\($0.0)'" }.joined(separator: ", "))" }
        return Outcome(lines: [line], repaired: true)
    }

    /// Columns that kept rows have and the kept records never declared, typed by their values.
    static func undeclaredColumns(_ memory: TableMemory) -> [(String, ColumnType?)] {
        var found: [String: ColumnType?] = [:]
        for row in memory.rows.values {
            for (name, value) in row.columns where memory.schema.columns[name] == nil {
                if found[name] == nil || found[name]! == nil { found[name] = .some(ColumnType(of: value)) }
            }
        }
        return found.keys.sorted().map { ($0, found[$0]!) }
    }

    /// `<log>.damaged.<n>` for the first n from 1 that is free.
    private static func freeAsidePath(for log: String) throws(StorageError) -> String {
        let fs = LocalFileSystem()
        var n = 1
        while true {
            let candidate = log + ".damaged.\(n)"
            do {
                if try fs.readFile(candidate) == nil { return candidate }
            } catch {
                throw StorageError(.io, path: candidate, "cannot look at: \(error.reason)")
            }
            n += 1
        }
    }

    private static func writeDurably(_ bytes: [UInt8], to path: String) throws(StorageError) {
        let fs = LocalFileSystem()
        do {
            try AtomicFile.write(bytes, to: path, in: fs)
            try fs.syncDirectory(path.parentPath)
        } catch {
            throw StorageError(.io, path: path, "cannot move the damaged bytes aside: \(error.reason)")
        }
    }
}
