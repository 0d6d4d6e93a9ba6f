import TodoModel
import TodoSync

/// Text and JSON for push and pull reports (sync.md §4.9, §5.9). JSON is a stable contract.
enum SyncRenderer {
    /// Per-op lines beyond this many are summarised, except those that need attention.
    static let lineLimit = 50

    /// `resolve`: the command that settles the open conflicts (`ResolveHint`).
    static func pushText(_ r: PushReport, resolve: String? = nil) -> [String] {
        if r.lines.isEmpty && r.okNotListed == 0 && r.stop == nil {
            return ["nothing to push (queue empty)"] + conflictFooter(r.openConflicts, command: resolve)
        }
        var lines = ["pushed \(r.totalSent) operation\(r.totalSent == 1 ? "" : "s") to \(r.remote) (\(r.generation))"]
        // Ops the stop kept from being sent are counted, not listed: they are simply still queued.
        let unsent = r.lines.filter { $0.result == .stopped }.count
        let answered = r.lines.filter { $0.result != .stopped }
        // The push kept `lineLimit` lines of ops answered ok (`SyncRunner.push`), and counted the others.
        let answeredCount = answered.count + r.okNotListed
        let shown = answeredCount <= lineLimit ? answered : answered.filter { $0.result != .ok }
        for line in shown {
            lines.append("  \(line.kind.rawValue.padding(6))  \(line.table)  \(ShortID.of(line.id))  \(describe(line.result))")
        }
        if shown.count < answeredCount { lines.append("  (\(answeredCount - shown.count) more ok)") }
        if unsent > 0 { lines.append("  (the push stopped before sending the rest)") }
        var summary: [String] = ["\(r.succeeded) ok"]
        if r.replayed > 0 { summary.append("\(r.replayed) replayed") }
        if r.merged > 0 { summary.append("\(r.merged) auto-merged") }
        if r.newConflicts > 0 { summary.append("\(r.newConflicts) new conflict\(r.newConflicts == 1 ? "" : "s")") }
        if r.newRejections > 0 { summary.append("\(r.newRejections) rejected") }
        if r.held > 0 { summary.append("\(r.held) held") }
        summary.append("\(r.remaining) left in the queue")
        lines.append(summary.joined(separator: ", "))
        return lines + conflictFooter(r.openConflicts, command: resolve)
    }

    static func conflictFooter(_ open: Int, command: String?) -> [String] {
        guard open > 0 else { return [] }
        let how = command.map { " with '\($0)'" } ?? " with 'todo resolve'"
        return ["\(open) conflict\(open == 1 ? "" : "s") open. Settle \(open == 1 ? "it" : "them")\(how) ('todo diff' shows the copies)."]
    }

    static func describe(_ result: PushReport.Line.Result) -> String {
        switch result {
        case .ok: "ok"
        case .replayed(let rule): "ok (replayed: \(rule))"
        case .merged: "ok (auto-merged)"
        case .absorbed: "ok (already on the server)"
        case .conflict(let status, let kind, let fields): "conflict (\(status.map(String.init) ?? "-")): \(conflict(kind, fields))"
        case .rejected(let status, let message): "rejected (\(status.map(String.init) ?? "-")): \(message ?? "no message")"
        case .held: "held (conflict open)"
        case .stopped: "not sent (push stopped)"
        }
    }

    /// The conflict's kind (sync.md §7.3), with the clashing fields when there are any:
    /// "text changed on both sides", "added on both sides (text differs)".
    static func conflict(_ kind: Conflict.Kind, _ fields: [String]) -> String {
        guard !fields.isEmpty else { return kind.text }
        let names = fields.joined(separator: ", ")
        if kind == .changedOnBothSides { return "\(names) changed on both sides" }
        return "\(kind.text) (\(names) \(fields.count == 1 ? "differs" : "differ"))"
    }

    static func pushJSON(_ r: PushReport) -> JSONValue {
        var sent: [String: JSONValue] = [:]
        for kind in PendingOperation.Kind.allCases { sent[kind.rawValue] = .number(Double(r.sent[kind, default: 0])) }
        return [
            "remote": .string(r.remote), "protocol": .string(r.generation), "sent": .object(sent),
            "succeeded": .number(Double(r.succeeded)), "replayed": .number(Double(r.replayed)),
            "merged": .number(Double(r.merged)), "newConflicts": .number(Double(r.newConflicts)),
            "newRejections": .number(Double(r.newRejections)), "held": .number(Double(r.held)),
            "remaining": .number(Double(r.remaining)), "openConflicts": .number(Double(r.openConflicts)),
            "stop": stopJSON(r.stop),
            "operations": .array(r.lines.map { line in
                ["kind": .string(line.kind.rawValue), "table": .string(line.table), "id": .string(line.id),
                 "result": .string(describe(line.result))]
            }),
        ]
    }

    static func pullText(_ r: PullReport, resolve: String? = nil) -> [String] {
        var lines: [String] = []
        // A query the stop cut off before its first page has nothing to report.
        for q in r.queries where !(r.stop != nil && q.pages == 0) {
            let name = q.queryID.map { "query '\($0)'" } ?? "one-off filter"
            for note in q.notes { lines.append("\(q.table) \(name): \(PullNoticeText.note(note))") }
            if q.rejected != nil { continue }
            var parts = ["\(q.received) row\(q.received == 1 ? "" : "s")", "\(q.created) created", "\(q.updated) updated",
                         "\(q.removed) removed"]
            if q.merged > 0 { parts.append("\(q.merged) auto-merged") }
            if q.absorbed > 0 { parts.append("\(q.absorbed) absorbed") }
            if q.conflicts > 0 { parts.append("\(q.conflicts) new conflict\(q.conflicts == 1 ? "" : "s")") }
            if q.skippedSealed > 0 { parts.append("\(q.skippedSealed) left for the push's replay check") }
            lines.append("pulled \(q.table) \(name): " + parts.joined(separator: ", "))
        }
        return lines + conflictFooter(r.openConflicts, command: resolve)
    }

    static func pullJSON(_ r: PullReport) -> JSONValue {
        [
            "queries": .array(r.queries.map { q in
                [
                    "table": .string(q.table), "queryId": q.queryID.map { .string($0) } ?? .null,
                    "received": .number(Double(q.received)), "created": .number(Double(q.created)),
                    "updated": .number(Double(q.updated)), "removed": .number(Double(q.removed)),
                    "merged": .number(Double(q.merged)), "absorbed": .number(Double(q.absorbed)),
                    "conflicts": .number(Double(q.conflicts)), "skippedSealed": .number(Double(q.skippedSealed)),
                    "pages": .number(Double(q.pages)), "rejected": q.rejected.map { .string(PullNoticeText.refusal($0)) } ?? .null,
                    "token": q.token.map { ["updatedAt": .string($0.updatedAt), "id": $0.id.map { .string($0) } ?? .null] } ?? .null,
                    "notes": .array(q.notes.map { .string(PullNoticeText.note($0)) }),
                ]
            }),
            "warnings": .array(r.warnings.map { .string(PullNoticeText.warning($0)) }),
            "openConflicts": .number(Double(r.openConflicts)),
            "stop": stopJSON(r.stop),
        ]
    }

    static func stopJSON(_ stop: SyncStop?) -> JSONValue {
        guard let stop else { return .null }
        return ["kind": .string(stop.kind.rawValue), "status": stop.status.map { .number(Double($0)) } ?? .null,
                "message": .string(SyncStopText.sentence(stop))]
    }

    /// What to do when requests keep arriving damaged: the server is up, the path to it is not sound.
    static func damagedHint(command: String) -> String {
        "nothing was lost; run 'todo \(command)' again; if this keeps happening, check the proxy or network between here and the server"
    }

    /// The stop as an error on stderr, with what to do.
    static func stopLines(_ stop: SyncStop, command: String) -> [String] {
        // Its one sentence already says what to check.
        let sentence = SyncStopText.sentence(stop)
        if stop.kind == .wrongURL { return ["error: \(sentence)"] }
        let hint: String
        switch stop.kind {
        case .network where stop.tlsFailed: hint = "nothing was lost; run 'todo \(command)' again once that is fixed"
        case .network where stop.requestDamaged: hint = damagedHint(command: command)
        case .network, .server: hint = "nothing was lost; run 'todo \(command)' again when the server is reachable"
        case .auth: hint = "nothing was lost; fix the token or app key, then run 'todo \(command)' again"
        case .config, .wrongURL: hint = "nothing was lost; see 'todo remote'"
        }
        return ["error: \(sentence)", "hint: \(hint)"]
    }
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
