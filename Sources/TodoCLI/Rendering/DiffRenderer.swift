import TodoModel

/// Human form of `todo diff`: `~` changed, `+` added, `-` removed; conflicts as three columns.
enum DiffRenderer {
    static func render(_ e: DiffEntry) -> [String] {
        if let c = e.conflict { return handEditLines(e) + conflict(e, c) }
        let ops = e.operations.isEmpty ? "edited by hand, not recorded" : e.operations.map { "\($0.kind.rawValue) #\($0.sequence)" }.joined(separator: ", ")
        var lines = ["\(e.table)/\(e.id)  \(ops)  (base \(e.base?.system.version ?? "none: never synced"))"]
        lines += handEditLines(e).map { "  " + $0 }
        if e.local == nil { lines.append("  deleted locally") }
        for change in e.changes {
            switch (change.base.isNull, change.local.isNull) {
            case (true, _): lines.append("  + \(change.field): \(change.local.compactText)")
            case (_, true): lines.append("  - \(change.field): \(change.base.compactText)")
            default: lines.append("  ~ \(change.field): \(change.base.compactText) -> \(change.local.compactText)")
            }
        }
        return lines
    }

    /// "edited by hand: text changed (not recorded; ...)": what `--adopt` or `--discard` settles.
    static func handEditLines(_ e: DiffEntry) -> [String] {
        e.handEdits.map { "(\($0.path.hasPrefix("operations/") ? "its operation was" : "its file was") edited by hand: \($0.summary); "
            + "'todo edit \(ShortID.of(e.id)) --adopt' records it, '--discard' puts back what todo wrote)" }
    }

    static func conflict(_ e: DiffEntry, _ c: Conflict) -> [String] {
        var lines = ["\(e.table)/\(e.id)  conflict: \(c.kindDescription)  (\(c.operation.kind.rawValue) #\(c.operation.sequence))"]
        let copies: [(String, Item?)] = [("base", c.base), ("client", c.client), ("server", c.server)]
        let names = Set(copies.flatMap { $0.1?.fields.keys.map { $0 } ?? [] }).sorted()
        var rows: [[String]] = [["field", "base", "client", "server"]]
        for name in names {
            let cells = copies.map { copy -> String in
                guard let item = copy.1 else { return "(none)" }
                return item.fields[name]?.compactText ?? "-"
            }
            rows.append([(c.fields.contains(name) ? "! " : "  ") + name] + cells)
        }
        rows.append(["  version"] + copies.map { $0.1?.system.version ?? "-" })
        if c.server?.isDeleted == true { rows.append(["  deleted", "", "", "true"]) }
        let widths = (0..<4).map { col in rows.map { $0[col].count }.max() ?? 0 }
        for row in rows {
            var line = "  " + (0..<4).map { row[$0] + String(repeating: " ", count: widths[$0] - row[$0].count) }.joined(separator: "  ")
            while line.hasSuffix(" ") { line.removeLast() }
            lines.append(line)
        }
        if let resolve = e.resolveHint { lines.append("  (use \"\(resolve)\" to settle it)") }
        return lines
    }
}
