import TodoModel
import TodoStore

/// Human forms of `todo status`. Not a stable contract (use `--json` in scripts).
enum StatusRenderer {
    static func long(_ r: StatusReport) -> [String] {
        var lines: [String] = []
        if let remote = r.config.remote {
            lines.append("Remote: \(remote) (\(r.config.protocolGeneration.rawValue))")
        } else {
            lines.append("Remote: none")
            lines.append("  (use \"todo remote set URL\" to name the table server to sync with)")
        }
        if r.queue.count == 0 {
            lines.append("")
            lines.append("Nothing to push.")
        } else {
            lines.append("")
            lines.append("Pending operations: \(r.queue.count)\(r.queue.held == 0 ? "" : " (\(r.queue.held) held behind conflicts)")")
            let send = r.config.remote == nil ? "\"todo remote set URL\", then \"todo push\"," : "\"todo push\""
            lines.append("  (use \(send) to send them, \"todo log\" to list them, \"todo diff\" to see the changes)")
            let byTable = r.queue.byTable
            for table in byTable.keys.sorted() {
                let counts = PendingOperation.Kind.allCases.compactMap { kind -> String? in
                    guard let n = byTable[table]?[kind] else { return nil }
                    return "\(n) \(kind.rawValue)"
                }
                lines.append("  \(table): \(counts.joined(separator: ", "))")
            }
        }
        if !r.conflicts.isEmpty {
            lines.append("")
            lines.append("Open conflicts: \(r.conflicts.count)")
            let diff = r.conflicts.count == 1 ? "todo diff \(r.short.of(r.conflicts[0].id, table: r.conflicts[0].table))\(tableOption(r.conflicts[0].table, r))" : "todo diff"
            lines.append("  (use \"\(diff)\" to compare the copies)")
            if let resolve = r.resolveHint { lines.append("  (use \"\(resolve)\" to settle \(r.conflicts.count == 1 ? "it" : "them"))") }
            for c in r.conflicts {
                lines.append("  \(c.table)  \(r.short.of(c.id, table: c.table))  \(c.kindDescription)\(c.fields.isEmpty ? "" : ": " + c.fields.joined(separator: ", "))")
            }
        }
        if !r.handEdits.isEmpty {
            lines.append("")
            lines.append("Edited by hand, not recorded as changes: \(r.handEdits.count)")
            let one = r.handEdits.count == 1 ? r.handEdits[0] : nil
            let target = one.map { r.short.of($0.id, table: $0.table) } ?? "ID"
            let table = one.map { tableOption($0.table, r) } ?? ""
            let each = one == nil ? ", for each id below" : ""
            lines.append("  (use \"todo edit \(target)\(table) --adopt\" to record the edit as a change, \"todo edit \(target)\(table) --discard\" to put back what todo wrote\(each))")
            lines.append("  (until then, changes to these items stop, and so does a push or pull that would overwrite them)")
            for e in r.handEdits { lines.append("  \(e.table)  \(r.short.of(e.id, table: e.table))  \(e.summary)") }
        }
        let queries = r.tables.flatMap { t in t.queries.keys.sorted().map { (t.name, $0, t.queries[$0]!) } }
        lines.append("")
        if queries.isEmpty && r.pulledWithoutQuery.isEmpty {
            lines.append("Never pulled.")
        } else {
            lines.append("Last pull:")
            for (table, id, q) in queries {
                lines.append("  \(table)/\(id)  \(lastPull(q))\(q.filter.map { "  filter: \($0)" } ?? "")")
            }
            for table in r.pulledWithoutQuery {
                lines.append("  \(table)  pulled, but no query is stored (a pull with --filter alone, or a query removed); 'todo pull' stores 'default'")
            }
        }
        if let untracked = r.untracked, !untracked.tables.isEmpty {
            lines.append("")
            lines.append("On the server, not tracked here: \(untracked.tables.joined(separator: ", ")) (listed at \(untracked.listedAt))")
            lines.append("  (use \"todo pull --all-tables\" to pull them, \"todo pull --table \(untracked.tables[0])\" for one)")
        }
        let hard = r.tables.filter(\.hardDelete).map(\.name)
        if !hard.isEmpty {
            lines.append("")
            lines.append("Deleted for good on the server (hard delete): \(hard.joined(separator: ", "))")
            lines.append("  (rows other replicas delete there stay here: pulls never show those deletions)")
            lines.append("  (use \"todo purge --table T\" then \"todo pull\" to drop them)")
        }
        return lines
    }

    /// When a query was last pulled to its end; a pull cut short keeps its token but has no time yet.
    static func lastPull(_ q: TableConfig.Query) -> String {
        if let at = q.lastPullAt { return at }
        return q.token == nil ? "never" : "not finished: stopped partway; 'todo pull' resumes it from its token"
    }

    /// One line per operation and conflict: `I|U|D|C  table  short-id`, like `git status -s`.
    /// The operations' lines come from the queue's sort (`StatusQueue`), one at a time.
    static func short(_ r: StatusReport, _ out: (String) -> Void) throws(CLIError) {
        if let remote = r.config.remote { out("## \(remote) (\(r.config.protocolGeneration.rawValue))") }
        try r.queue.forEachLine { line in
            out(String(decoding: line, as: UTF8.self))
            return true
        }
        for c in r.conflicts { out("C  \(c.table)  \(r.short.of(c.id, table: c.table))  \(c.kindDescription)") }
        for e in r.handEdits { out("H  \(e.table)  \(r.short.of(e.id, table: e.table))  \(e.summary)") }
    }

    /// `--table T` when an id's table is not the replica's default (ids are looked up in one table).
    static func tableOption(_ table: String, _ r: StatusReport) -> String {
        TableName.same(table, r.config.defaultTable) ? "" : " --table \(table)"
    }
}
