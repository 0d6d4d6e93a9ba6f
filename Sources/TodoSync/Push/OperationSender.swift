import TodoModel

/// What one op's trip to the server came to. The push engine commits it.
enum SendOutcome: Sendable {
    /// Done. `server` is S for inserts and updates (nil for deletes).
    case succeeded(server: Item?, receipt: PushRules.ReceiptKind?)
    /// The op changed and must be committed, sealed, then sent again: an auto-merge, a landed
    /// undelete, an insert to send once more, an undelete that became an insert.
    case resend(PendingOperation, receipt: Receipt?, merged: Bool)
    /// A conflict or rejection to record; the op is unsealed and its item held.
    case conflict(reason: Conflict.Reason, status: Int?, message: String?, server: Item?, fields: [String])
    /// The push stops. `unsealed`: the failure proves nothing reached the server.
    case stopped(SyncStop, unsealed: Bool)
    /// Not sent because the push stopped first: the marker is cleared.
    case notSent
}

/// Sends one op and follows it through retries, the replay check and conflict statuses
/// (sync.md §4.3–§4.8). Runs on a worker thread; reads nothing from the store.
struct OperationSender: Sendable {
    let client: TableClient
    /// Auto-merges allowed per op in one push (§4.6.3): the fourth 409/412 is a conflict.
    static let maximumMerges = 3

    struct Context: Sendable {
        var op: PendingOperation
        /// The op was sealed before this push: run the replay check before anything is sent.
        var sealedAtStart: Bool
        var onlyOp: Bool
        /// Auto-merges already done for this op in this push.
        var merges: Int
        var insertedAgain: Bool
    }

    /// Follows `context.op` to its outcome. `first`: the answer to its first request, when the
    /// engine already sent it (pipelined with others); only for ops that need no replay check first.
    /// `pushStopped` tells whether another op already stopped the push: then nothing is retried.
    func run(_ context: Context, first: Result<TableReply, TransportFailure>? = nil,
             pushStopped: () -> Bool = { false }) -> SendOutcome {
        let op = context.op
        precondition(first == nil || !context.sealedAtStart, "a sealed op is checked before it is sent")
        var first = first
        var check = context.sealedAtStart
        // An attempt of this push may have reached the server (timeout, reset after sending,
        // 408, 429, 5xx). From then on a stop leaves the op sealed, whatever a later attempt
        // got: only the replay check of the next push can tell whether that request landed.
        var mayHaveLanded = false
        var attempt = 1
        while true {
            if check {
                switch fetch(op) {
                case .failure(let stop): return .stopped(stop, unsealed: false)
                case .success(let server):
                    let verdict = PushRules.replay(op, server: server, onlyOp: context.onlyOp)
                    if verdict != .send { return outcome(of: verdict, server: server, status: Self.replayStatus(op, server), context) }
                }
            }
            let sent = first ?? client.send(call(for: op), purpose: .push)
            first = nil
            switch sent {
            case .failure(let failure):
                mayHaveLanded = mayHaveLanded || failure.mayHaveReachedServer
                guard !pushStopped(), let delay = client.retry.delay(after: attempt, failure: failure) else {
                    return .stopped(.network(failure), unsealed: !mayHaveLanded)
                }
                client.retry.sleep(delay)
                check = failure.mayHaveReachedServer
                attempt += 1
            case .success(let reply):
                // A web page changed nothing on any table server; it is not worth a retry.
                if let stop = client.foreignAnswer(reply) { return .stopped(stop, unsealed: !mayHaveLanded) }
                if RetryPolicy.isRetryable(status: reply.status) {
                    mayHaveLanded = true
                    guard !pushStopped(), let delay = client.retry.delay(after: attempt, retryAfter: reply.retryAfter) else {
                        return .stopped(reply.status == 408 ? SyncStop(.network, status: 408, message: "the server timed out the request (408) 3 times")
                                        : .server(reply), unsealed: false)
                    }
                    client.retry.sleep(delay)
                    check = true
                    attempt += 1
                    continue
                }
                let result = answer(reply, context)
                if case .stopped(let stop, true) = result, mayHaveLanded { return .stopped(stop, unsealed: false) }
                return result
            }
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

    /// §4.7: what a definitive status means for this op.
    private func answer(_ reply: TableReply, _ context: Context) -> SendOutcome {
        let op = context.op
        let status = reply.status
        if IntegerIDTable.shown(by: reply) {
            // The replica keeps string ids only. A refused write changed nothing; a 2xx may have
            // stored a row, which only the replay check of a later push can tell.
            return .stopped(SyncStop(.config, status: status, message: IntegerIDTable.message(op.table)), unsealed: !reply.isSuccess)
        }
        if reply.isSuccess { return success(reply, op) }
        switch status {
        case 401, 403: return .stopped(.auth(reply), unsealed: true)
        case 405:
            return .stopped(SyncStop(.config, status: 405, message: "the server does not allow \(methodName(op)) on table '\(op.table)' (405)"), unsealed: true)
        case 404:
            if op.kind == .delete { return .succeeded(server: nil, receipt: nil) }
            if op.restore {
                var insert = op
                insert.kind = .insert
                insert.base = nil
                insert.restore = false
                return .resend(insert, receipt: nil, merged: false)
            }
            switch client.read(.probeTable(table: op.table), purpose: .push) {
            case .failure(let failure): return .stopped(.network(failure), unsealed: true)
            case .success(let probe) where client.foreignAnswer(probe) != nil:
                return .stopped(client.foreignAnswer(probe)!, unsealed: true)
            case .success(let probe) where probe.status == 404:
                return .stopped(SyncStop(.config, status: 404, message: "the server has no table '\(op.table)'"), unsealed: true)
            case .success:
                break
            }
            if op.kind == .insert { return rejection(reply, op) }
            return serverCopyConflict(reply, context, status: 404)
        case 409, 412:
            if op.restore { return conflictWithServer(reply, op, status: status) }
            return serverCopyConflict(reply, context, status: status)
        case 410:
            switch op.kind {
            case .delete: return .succeeded(server: nil, receipt: nil)
            case .insert: return conflictWithServer(reply, op, status: 410)
            case .update: return serverCopyConflict(reply, context, status: 410)
            }
        default:
            return rejection(reply, op)
        }
    }

    private func success(_ reply: TableReply, _ op: PendingOperation) -> SendOutcome {
        if op.kind == .delete { return .succeeded(server: nil, receipt: nil) }
        var server = reply.item
        if server == nil || !ItemID.same(server!.id, op.id) {
            switch fetch(op) {
            case .success(let got): server = got
            // A 2xx that is no row, and a query answered by no table server: the write may have
            // landed somewhere, so the op stays sealed for the next push's replay check.
            case .failure(let stop) where stop.kind == .wrongURL: return .stopped(stop, unsealed: false)
            case .failure: server = nil
            }
        }
        if op.restore {
            guard let s = server else { return .stopped(SyncStop(.server, message: "the undelete of \(op.id) succeeded but the server copy could not be read; run 'todo push' again"), unsealed: false) }
            var next = op
            next.base = s
            next.restore = false
            return .resend(next, receipt: nil, merged: false)
        }
        guard var s = server else { return .succeeded(server: op.item.userCopy, receipt: nil) }
        // Mobile Services answers a PATCH with the patch only: fill what was sent (§4.5.1).
        for (name, value) in op.item.fields where s.fields[name] == nil { s.fields[name] = value }
        return .succeeded(server: s, receipt: nil)
    }

    /// 409/412/404/410: S from the body when it has a version, else from a GET (§4.6.1).
    private func serverCopyConflict(_ reply: TableReply, _ context: Context, status: Int) -> SendOutcome {
        let op = context.op
        var server: Item?
        if let s = trustedCopy(reply, op) {
            server = s
        } else {
            switch fetch(op) {
            case .failure(let stop): return .stopped(stop, unsealed: true)
            case .success(let s): server = s
            }
            // The server says the id is taken, but no row is spelled so: look again ignoring case.
            if server == nil, op.kind == .insert, status == 409 {
                switch fetch(op, ignoringCase: true) {
                case .failure(let stop): return .stopped(stop, unsealed: true)
                case .success(let s): server = s
                }
            }
        }
        return outcome(of: PushRules.afterConflictStatus(op, server: server, onlyOp: context.onlyOp, status: status),
                       server: server, status: status, context)
    }

    private func conflictWithServer(_ reply: TableReply, _ op: PendingOperation, status: Int) -> SendOutcome {
        var server = trustedCopy(reply, op)
        if server == nil, case .success(let s) = fetch(op) { server = s }
        // A restore that meets a live row (someone else restored it first) is "changed on both
        // sides": list the clashing fields (§7.2), as a pull refresh would, so that the file
        // agrees with what `resolve --merge` will say.
        var fields: [String] = []
        if op.kind == .update, let s = server, !s.isDeleted,
           case .clash(let clash) = ThreeWayMerge.merge(base: op.base?.fields ?? [:], client: op.item.fields, server: s.fields) {
            fields = clash
        }
        return .conflict(reason: .conflict, status: status, message: nil, server: server, fields: fields)
    }

    /// §4.8.3: refused for a reason other than a version conflict. The server copy comes from a GET.
    private func rejection(_ reply: TableReply, _ op: PendingOperation) -> SendOutcome {
        var server: Item? = nil
        if case .success(let s) = fetch(op) { server = s }
        return .conflict(reason: .rejected, status: reply.status, message: reply.message, server: server, fields: [])
    }

    /// Turns a rule's verdict, made on the server copy `server`, into an outcome. `status` is
    /// the one that revealed S (for the conflict a merge past the limit records).
    private func outcome(of verdict: PushRules.Verdict, server: Item?, status: Int, _ context: Context) -> SendOutcome {
        let op = context.op
        switch verdict {
        case .send:
            return .resend(op, receipt: nil, merged: false)
        case .succeeded(let server, let receipt):
            return .succeeded(server: server, receipt: receipt)
        case .conflict(let status, let fields):
            return .conflict(reason: .conflict, status: status, message: nil, server: server, fields: fields)
        case .restoreLanded(let server):
            var next = op
            next.base = server
            next.restore = false
            return .resend(next, receipt: nil, merged: false)
        case .insertAgain:
            guard !context.insertedAgain else {
                return .conflict(reason: .conflict, status: 409, message: "the server reports the id as taken but has no such row", server: nil, fields: [])
            }
            return .resend(op, receipt: nil, merged: false)
        case .merged(let fields, let fromClient, let fromServer, let server):
            guard context.merges < Self.maximumMerges else {
                return .conflict(reason: .conflict, status: status, message: nil, server: server, fields: [])
            }
            var next = op
            next.item = Item(id: op.item.id, fields: fields)
            next.base = server
            let receipt = Receipt(decision: .merge, rule: "push", table: op.table, id: op.id, operation: op.reference,
                                  kept: next.item, lost: [:], fields: (fromClient, fromServer))
            return .resend(next, receipt: receipt, merged: true)
        }
    }

    private func trustedCopy(_ reply: TableReply, _ op: PendingOperation) -> Item? {
        guard let s = reply.item, s.system.version != nil, ItemID.same(s.id, op.id) else { return nil }
        return s
    }

    /// The server copy S by the one-row query (protocol §10.3); nil when the server has no such
    /// row (an empty result, or 404/410). The rows are read with `WireItem.normalize` alone: a
    /// list answer's `ETag` says nothing about any one row.
    func fetch(_ op: PendingOperation, ignoringCase: Bool = false) -> Result<Item?, SyncStop> {
        let call: TableCall = ignoringCase ? .fetchIgnoringCase(table: op.table, id: op.id) : .fetch(table: op.table, id: op.id)
        switch client.read(call, purpose: .push) {
        case .failure(let failure): return .failure(.network(failure))
        case .success(let reply):
            if let stop = client.foreignAnswer(reply) { return .failure(stop) }
            if reply.status == 404 || reply.status == 410 { return .success(nil) }
            if reply.isSuccess, let rows = reply.rows { return Self.serverCopy(of: op, in: rows, reply) }
            if reply.isSuccess { return .failure(client.notATableAnswer(reply, expected: "a list of rows")) }
            if reply.status == 401 || reply.status == 403 { return .failure(.auth(reply)) }
            if RetryPolicy.isRetryable(status: reply.status) { return .failure(.server(reply)) }
            return .failure(.unexpected(reply, doing: "the query for \(op.table)/\(op.id)"))
        }
    }

    /// The row of `op`'s item among the rows of a one-row query. A row of another id means the
    /// server ignored `$filter`; then not finding ours would prove nothing, so the push stops.
    static func serverCopy(of op: PendingOperation, in rows: [JSONValue], _ reply: TableReply) -> Result<Item?, SyncStop> {
        let items = rows.compactMap { WireItem.normalize($0)?.item }
        let ours = items.filter { ItemID.same($0.id, op.id) }
        guard ours.count == items.count else {
            return .failure(SyncStop(.server, status: reply.status, message:
                "the server ignored $filter=id eq '\(op.id)' (it answered rows of other ids), so the server copy of \(op.table)/\(op.id) cannot be known; the operation stays queued. Check the remote URL, or a proxy in between"))
        }
        return .success(ours.first { $0.id == op.id } ?? ours.first)
    }

    func call(for op: PendingOperation) -> TableCall {
        switch op.kind {
        case .insert: return .insert(table: op.table, body: WireItem.insertBody(op.item))
        case .update where op.restore: return .undelete(table: op.table, id: op.id, version: op.base?.system.version)
        case .update:
            return .update(table: op.table, id: op.id, body: WireItem.updateBody(op.item, base: op.base), version: op.base?.system.version)
        case .delete: return .delete(table: op.table, id: op.id, version: op.base?.system.version)
        }
    }

    private func methodName(_ op: PendingOperation) -> String {
        switch call(for: op) {
        case .insert, .undelete: "POST"
        case .update: "PATCH"
        case .delete: "DELETE"
        default: "GET"
        }
    }
}
