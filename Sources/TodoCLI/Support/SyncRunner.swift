import TableProtocol
import TodoModel
import TodoStore
import TodoSync

/// Runs push and pull for the commands that need them (push, pull, sync, clone), under the
/// store lock that the caller holds, and prints their reports.
enum SyncRunner {
    /// `everyLine`: the report's caller renders it as JSON itself (`sync --json`).
    static func push(_ store: Store, _ ctx: CommandContext, table: String?, json: Bool, concurrency: Int? = nil,
                     everyLine: Bool = false) throws(CLIError) -> PushReport {
        let (client, endpoint, config) = try RemoteAccess.client(store, ctx)
        defer { client.transport.close() }
        let engine = PushEngine(store: store, client: client, clock: ctx.clock,
                                progress: RemoteAccess.progress(ctx, unit: "operations"))
        var options = PushEngine.Options(table: table)
        if let concurrency { options.concurrency = concurrency }
        // An https server sits behind a TLS terminator (nginx, Caddy), which passes a connection's
        // pipelined requests on one at a time: more connections keep more writes at the server at
        // once, which its group commit makes durable together (issue 20: 16 instead of 4 took the
        // https push from 1.37x to 1.13x of http's in one run). Not through the helper, where each
        // connection is a process to start (it gets 8: `BatchSender`).
        if endpoint.scheme == .https && client.transport.pipelines { options.connections = 16 }
        // Ops per batch (one commit each). Tests make it small so that a few ops already cross
        // batches and the commit of one batch overlaps the requests of the next.
        if let size = ctx.environment["TODO_PUSH_BATCH"].flatMap(Int.init), size > 0 { options.batchSize = size }
        // Connections a batch is dealt over. Tests set 1 or 2, so that even their small batches
        // are pipelined and a fault or a kill can land in the middle of a pipeline.
        if let count = ctx.environment["TODO_PUSH_CONNECTIONS"].flatMap(Int.init), count > 0 { options.connections = count }
        // Ops read from the queue at a time, also for short queues. Tests make it small so that a
        // few ops cross windows.
        if let size = ctx.environment["TODO_PUSH_WINDOW"].flatMap(Int.init), size > 0 {
            options.window = size
            options.wholeQueueUpTo = size
        }
        // JSON lists every op; text names 50 answered ok at most (a line each held for a push of a
        // million took some 200 MB).
        if !json && !everyLine { options.okLinesKept = SyncRenderer.lineLimit }
        var report: PushReport
        do { report = try engine.run(options) } catch { throw .store(error) }
        // The push refused to send while queued items are edited by hand (a pull refuses such an
        // item when a row for it arrives: `Store.item`).
        if !report.handEdits.isEmpty {
            var refusal = StoreAccess.refuse(report.handEdits)
            refusal.message = "nothing was pushed: " + refusal.message
            throw refusal
        }
        ctx.console.endProgress()
        report.remote = endpoint.displayURL
        report.generation = config.protocolGeneration.rawValue
        if json {
            ctx.console.outRaw(SyncRenderer.pushJSON(report).canonicalBytes())
        } else {
            for line in SyncRenderer.pushText(report, resolve: resolveHint(store, open: report.openConflicts)) { ctx.console.out(line) }
        }
        if let stop = report.stop {
            let kept = report.remaining == 1 ? "your 1 change is kept" : "your \(report.remaining) changes are kept"
            if stop.kind == .network && (stop.tlsFailed || stop.requestDamaged) {
                // Not a server that is down: its sentence says what to fix.
                ctx.console.err("error: \(report.remote): \(SyncStopText.sentence(stop)); \(kept)")
                ctx.console.err("hint: " + (stop.requestDamaged ? SyncRenderer.damagedHint(command: "push") : "run 'todo push' again once that is fixed"))
            } else if stop.kind == .network {
                // The usual case is a server that is down: say where, and that nothing is lost.
                ctx.console.err("error: could not reach \(report.remote) (\(SyncStopText.sentence(stop))); \(kept)")
                ctx.console.err("hint: run 'todo push' again when the server is reachable")
            } else if stop.kind == .wrongURL {
                ctx.console.err("error: \(SyncStopText.sentence(stop)); \(kept)")
            } else {
                for line in SyncRenderer.stopLines(stop, command: "push") { ctx.console.err(line) }
            }
        }
        return report
    }

    /// `printStop: false` leaves the stop's lines to the caller (`clone`, whose hint differs).
    static func pull(_ store: Store, _ ctx: CommandContext, options: PullEngine.Options, json: Bool,
                     printStop: Bool = true) throws(CLIError) -> PullReport {
        let (client, _, config) = try RemoteAccess.client(store, ctx)
        defer { client.transport.close() }
        let report: PullReport
        do {
            let engine = try PullEngine(store: store, client: client, clock: ctx.clock, pageSize: config.pageSize,
                                        progress: RemoteAccess.progress(ctx, unit: "rows"))
            report = try engine.run(options)
        } catch {
            throw .store(error)
        }
        // A pull of many new items cannot keep the index of ids page by page: rebuilt once here,
        // so the first `edit` after a clone of a million items stays instant.
        store.rebuildIDIndexesLeftStale()
        ctx.console.endProgress()
        if json {
            ctx.console.outRaw(SyncRenderer.pullJSON(report).canonicalBytes())
        } else {
            for line in SyncRenderer.pullText(report, resolve: resolveHint(store, open: report.openConflicts)) { ctx.console.out(line) }
        }
        for warning in report.warnings { ctx.console.err("warning: \(PullNoticeText.warning(warning))") }
        for q in report.queries {
            if let rejected = q.rejected {
                ctx.console.err("error: \(q.table) query '\(q.queryID ?? "(one-off)")': \(PullNoticeText.refusal(rejected))")
            }
        }
        if printStop, let stop = report.stop { for line in SyncRenderer.stopLines(stop, command: "pull") { ctx.console.err(line) } }
        return report
    }

    /// `pull --verify` (and, without repairs, `doctor --remote`): every row of the server against
    /// the replica's copies of the same version.
    static func verify(_ store: Store, _ ctx: CommandContext, table: String?, repair: Bool, json: Bool) throws(CLIError) -> RemoteVerifier.Report {
        let report = try runVerifier(store, ctx, table: table, repair: repair)
        if json {
            ctx.console.outRaw(VerifyRenderer.json(report).canonicalBytes())
        } else {
            for line in VerifyRenderer.text(report) { ctx.console.out(line) }
        }
        for warning in report.warnings { ctx.console.err("warning: \(PullNoticeText.warning(warning))") }
        for t in report.tables { if let rejected = t.rejected { ctx.console.err("error: \(t.table): \(PullNoticeText.refusal(rejected))") } }
        if let stop = report.stop { for line in SyncRenderer.stopLines(stop, command: "pull --verify") { ctx.console.err(line) } }
        return report
    }

    /// The verification alone, printing nothing (`doctor --remote` renders it with its own report).
    static func runVerifier(_ store: Store, _ ctx: CommandContext, table: String?, repair: Bool) throws(CLIError) -> RemoteVerifier.Report {
        let (client, _, config) = try RemoteAccess.client(store, ctx)
        defer { client.transport.close() }
        do {
            return try RemoteVerifier(store: store, client: client, clock: ctx.clock, pageSize: config.pageSize)
                .run(table: table, repair: repair)
        } catch {
            throw .store(error)
        }
    }

    /// The command that settles the open conflicts, read after the run (nil when none are open).
    static func resolveHint(_ store: Store, open: Int) -> String? {
        guard open > 0, let conflicts = try? store.conflicts() else { return nil }
        return ResolveHint.command(conflicts, store)
    }
}
