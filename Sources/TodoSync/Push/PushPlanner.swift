import TodoModel

/// The push's decisions for one op (sync.md §4.4 replay check, §4.5 success, §4.6 conflicts,
/// §4.7 outcome by response, §4.8 stops and retries). Pure: given the op, what the server
/// answered and what the lookups found, it says what happens, or which lookup it needs first.
/// `OperationSender` does the I/O it asks for; `PushApplier` commits what it decides.
enum PushPlanner {
    /// Auto-merges allowed per op in one push (§4.6.3): the fourth 409/412 is a conflict.
    static let maximumMerges = 3

    /// The op and what this push knows about it.
    struct Context: Equatable, Sendable {
        var op: PendingOperation
        /// The op was sealed before this push: run the replay check before anything is sent.
        var sealedAtStart: Bool
        /// The op is its item's only pending op (auto-merge needs it, §4.6.2).
        var onlyOp: Bool
        /// Auto-merges already done for this op in this push.
        var merges: Int
        /// The insert was already sent once more after a 409 that found no row.
        var insertedAgain: Bool

        init(op: PendingOperation, sealedAtStart: Bool = false, onlyOp: Bool = true, merges: Int = 0, insertedAgain: Bool = false) {
            self.op = op
            self.sealedAtStart = sealedAtStart
            self.onlyOp = onlyOp
            self.merges = merges
            self.insertedAgain = insertedAgain
        }
    }

    /// What the planner is asked about.
    enum Event: Sendable {
        /// Before sending an op whose earlier request may have landed (§4.4.1).
        case replayCheck
        /// The request failed in the network, or timed out.
        case failed(TransportFailure)
        /// The server answered. `foreign`: the stop for an answer no table server gives (a
        /// redirect, a web page), as `TableClient.foreignAnswer` words it for this remote.
        case answered(TableReply, foreign: SyncStop?)
    }

    /// Plans `event` for the op. `landed`: an earlier attempt of this push may have reached the
    /// server, so a stop leaves the op sealed whatever this answer says: only the replay check
    /// of the next push can tell whether that request landed.
    static func plan(_ context: Context, _ event: Event, landed: Bool = false, lookups: PushLookups = PushLookups()) -> PushStep {
        switch event {
        case .replayCheck:
            return replayCheck(context, lookups)
        case .failed(let failure):
            let mayHaveLanded = failure.mayHaveReachedServer
            return .retry(PushRetry(failure: failure, retryAfter: nil, mayHaveLanded: mayHaveLanded,
                                    giveUp: .stop(.network(failure), unsealed: !(landed || mayHaveLanded))))
        case .answered(let reply, let foreign):
            // A web page changed nothing on any table server; it is not worth a retry.
            if let foreign { return .decided(.stop(foreign, unsealed: !landed)) }
            if RetryPolicy.isRetryable(status: reply.status) {
                let stop = reply.status == 408 ? SyncStop(.requestTimedOut)
                    : SyncStop.server(reply)
                return .retry(PushRetry(failure: nil, retryAfter: reply.retryAfter, mayHaveLanded: true, giveUp: .stop(stop, unsealed: false)))
            }
            let step = answer(reply, context, lookups)
            if landed, case .decided(.stop(let stop, true)) = step { return .decided(.stop(stop, unsealed: false)) }
            return step
        }
    }

    // MARK: Replay check (§4.4.2)

    private static func replayCheck(_ context: Context, _ lookups: PushLookups) -> PushStep {
        guard let fetched = lookups.serverCopy else { return .look(.serverCopy) }
        switch fetched {
        case .failure(let stop):
            return .decided(.stop(stop, unsealed: false))
        case .success(let server):
            let verdict = PushRules.replay(context.op, server: server, onlyOp: context.onlyOp)
            if verdict == .send { return .send }
            return .decided(decision(of: verdict, server: server, status: replayStatus(context.op, server), context))
        }
    }

    /// The status a conflict found by the replay check is recorded with (sync.md §7.2): what the
    /// write would have met.
    static func replayStatus(_ op: PendingOperation, _ server: Item?) -> Int {
        switch op.kind {
        case .insert: 409
        case .update where !op.restore && (server == nil || server?.isDeleted == true): 404
        default: 412
        }
    }

    // MARK: Outcome by response (§4.7)

    private static func answer(_ reply: TableReply, _ context: Context, _ lookups: PushLookups) -> PushStep {
        let op = context.op
        let status = reply.status
        if IntegerIDTable.shown(by: reply) {
            // The replica keeps string ids only. A refused write changed nothing; a 2xx may have
            // stored a row, which only the replay check of a later push can tell.
            return .decided(.stop(SyncStop(.integerIDs(table: op.table, status: status)), unsealed: !reply.isSuccess))
        }
        if reply.isSuccess { return success(reply, op, lookups) }
        switch status {
        case 401, 403:
            return .decided(.stop(.auth(reply), unsealed: true))
        case 405:
            return .decided(.stop(SyncStop(.methodNotAllowed(method: methodName(op), table: op.table)), unsealed: true))
        case 404:
            if op.kind == .delete { return .decided(.succeeded(server: nil, receipt: nil)) }
            if op.restore {
                // The row is gone for good: the undelete becomes an insert.
                var insert = op
                insert.kind = .insert
                insert.base = nil
                insert.restore = false
                return .decided(.sendAgain(insert, receipt: nil, merged: false))
            }
            switch lookups.table {
            case nil: return .look(.table)
            case .failed(let stop)?: return .decided(.stop(stop, unsealed: true))
            case .absent?: return .decided(.stop(SyncStop(.noTable(op.table)), unsealed: true))
            case .present?: break
            }
            if op.kind == .insert { return rejection(reply, lookups) }
            return serverCopyConflict(reply, context, status: 404, lookups)
        case 409, 412:
            if op.restore { return conflictWithServer(reply, op, status: status, lookups) }
            return serverCopyConflict(reply, context, status: status, lookups)
        case 410:
            switch op.kind {
            case .delete: return .decided(.succeeded(server: nil, receipt: nil))
            case .insert: return conflictWithServer(reply, op, status: 410, lookups)
            case .update: return serverCopyConflict(reply, context, status: 410, lookups)
            }
        default:
            return rejection(reply, lookups)
        }
    }

    /// §4.5.1: S is the body, else the one-row query, else what was sent.
    private static func success(_ reply: TableReply, _ op: PendingOperation, _ lookups: PushLookups) -> PushStep {
        if op.kind == .delete { return .decided(.succeeded(server: nil, receipt: nil)) }
        var server = reply.item
        if server == nil || !ItemID.same(server!.id, op.id) {
            switch lookups.serverCopy {
            case nil: return .look(.serverCopy)
            case .success(let got)?: server = got
            // A 2xx that is no row, and a query answered by no table server: the write may have
            // landed somewhere, so the op stays sealed for the next push's replay check.
            case .failure(let stop)? where stop.kind == .wrongURL: return .decided(.stop(stop, unsealed: false))
            case .failure?: server = nil
            }
        }
        if op.restore {
            guard let s = server else {
                return .decided(.stop(SyncStop(.undeleteUnread(id: op.id)), unsealed: false))
            }
            var next = op
            next.base = s
            next.restore = false
            return .decided(.sendAgain(next, receipt: nil, merged: false))
        }
        guard var s = server else { return .decided(.succeeded(server: op.item.userCopy, receipt: nil)) }
        // Mobile Services answers a PATCH with the patch only: fill what was sent (§4.5.1).
        for (name, value) in op.item.fields where s.fields[name] == nil { s.fields[name] = value }
        return .decided(.succeeded(server: s, receipt: nil))
    }

    // MARK: Conflicts (§4.6) and rejections (§4.8.3)

    /// 409/412/404/410: S from the body when it has a version, else from the query (§4.6.1).
    private static func serverCopyConflict(_ reply: TableReply, _ context: Context, status: Int, _ lookups: PushLookups) -> PushStep {
        let op = context.op
        var server: Item?
        if let s = trustedCopy(reply, op) {
            server = s
        } else {
            switch lookups.serverCopy {
            case nil: return .look(.serverCopy)
            case .failure(let stop)?: return .decided(.stop(stop, unsealed: true))
            case .success(let s)?: server = s
            }
            // The server says the id is taken, but no row is spelled so: look again ignoring case.
            if server == nil, op.kind == .insert, status == 409 {
                switch lookups.serverCopyIgnoringCase {
                case nil: return .look(.serverCopyIgnoringCase)
                case .failure(let stop)?: return .decided(.stop(stop, unsealed: true))
                case .success(let s)?: server = s
                }
            }
        }
        let verdict = PushRules.afterConflictStatus(op, server: server, onlyOp: context.onlyOp, status: status)
        return .decided(decision(of: verdict, server: server, status: status, context))
    }

    /// A conflict with whatever S is (a restore's 409/412, an insert's 410); S is absent when the
    /// query fails, as the conflict is recorded either way.
    private static func conflictWithServer(_ reply: TableReply, _ op: PendingOperation, status: Int, _ lookups: PushLookups) -> PushStep {
        var server = trustedCopy(reply, op)
        if server == nil {
            guard let fetched = lookups.serverCopy else { return .look(.serverCopy) }
            if case .success(let s) = fetched { server = s }
        }
        // A restore that meets a live row (someone else restored it first) is "changed on both
        // sides": list the clashing fields (§7.2), as a pull refresh would, so that the file
        // agrees with what `resolve --merge` will say.
        var fields: [String] = []
        if op.kind == .update, let s = server, !s.isDeleted,
           case .clash(let clash) = ThreeWayMerge.merge(base: op.base?.fields ?? [:], client: op.item.fields, server: s.fields) {
            fields = clash
        }
        return .decided(.recordConflict(status: status, message: nil, server: server, fields: fields))
    }

    /// §4.8.3: refused for a reason other than a version conflict. S comes from the query.
    private static func rejection(_ reply: TableReply, _ lookups: PushLookups) -> PushStep {
        guard let fetched = lookups.serverCopy else { return .look(.serverCopy) }
        let server = (try? fetched.get()) ?? nil
        return .decided(.reject(status: reply.status, message: reply.message, server: server))
    }

    /// A rule's verdict, made on the server copy `server`, as a decision. `status` is the one
    /// that revealed S (for the conflict a merge past the limit records).
    private static func decision(of verdict: PushRules.Verdict, server: Item?, status: Int, _ context: Context) -> PushDecision {
        let op = context.op
        switch verdict {
        case .send:
            return .sendAgain(op, receipt: nil, merged: false)
        case .succeeded(let server, let receipt):
            return .succeeded(server: server, receipt: receipt)
        case .conflict(let status, let fields):
            return .recordConflict(status: status, message: nil, server: server, fields: fields)
        case .restoreLanded(let server):
            var next = op
            next.base = server
            next.restore = false
            return .sendAgain(next, receipt: nil, merged: false)
        case .insertAgain:
            guard !context.insertedAgain else {
                return .recordConflict(status: 409, message: "the server reports the id as taken but has no such row", server: nil, fields: [])
            }
            return .sendAgain(op, receipt: nil, merged: false)
        case .merged(let fields, let fromClient, let fromServer, let server):
            guard context.merges < maximumMerges else {
                return .recordConflict(status: status, message: nil, server: server, fields: [])
            }
            var next = op
            next.item = Item(id: op.item.id, fields: fields)
            next.base = server
            let receipt = Receipt(decision: .merge, rule: "push", table: op.table, id: op.id, operation: op.reference,
                                  kept: next.item, lost: [:], fields: (fromClient, fromServer))
            return .sendAgain(next, receipt: receipt, merged: true)
        }
    }

    /// The body as S when it is the op's row with a version of its own (§4.6.1).
    private static func trustedCopy(_ reply: TableReply, _ op: PendingOperation) -> Item? {
        guard let s = reply.item, s.system.version != nil, ItemID.same(s.id, op.id) else { return nil }
        return s
    }

    private static func methodName(_ op: PendingOperation) -> String {
        switch op.kind {
        case .insert: "POST"
        case .update: op.restore ? "POST" : "PATCH"
        case .delete: "DELETE"
        }
    }
}
