import TodoModel

/// Sends one op and does the reads its planning needs (sync.md §4.3–§4.8): the request and its
/// retries, the one-row query of protocol §10.3, the table check. What each answer means is
/// `PushPlanner`'s to say. Runs on a worker thread; reads nothing from the store.
struct OperationSender: Sendable {
    let client: TableClient

    /// Follows `context.op` to its decision. `first`: the answer to its first request, when the
    /// engine already sent it (pipelined with others); only for ops that need no replay check first.
    /// `pushStopped` tells whether another op already stopped the push: then nothing is retried.
    func run(_ context: PushPlanner.Context, first: Result<TableReply, TransportFailure>? = nil,
             pushStopped: () -> Bool = { false }) -> PushDecision {
        precondition(first == nil || !context.sealedAtStart, "a sealed op is checked before it is sent")
        var first = first
        var check = context.sealedAtStart
        // An attempt of this push may have reached the server (see `PushPlanner.plan`).
        var landed = false
        var attempt = 1
        while true {
            if check {
                switch settle(context, .replayCheck, landed: landed) {
                case .send: break
                case .decided(let decision): return decision
                case .look, .retry: preconditionFailure("the replay check decides or sends")
                }
            }
            let sent = first ?? client.send(call(for: context.op), purpose: .push)
            first = nil
            let event: PushPlanner.Event = switch sent {
            case .failure(let failure): .failed(failure)
            case .success(let reply): .answered(reply, foreign: client.foreignAnswer(reply))
            }
            switch settle(context, event, landed: landed) {
            case .decided(let decision):
                return decision
            case .retry(let retry):
                landed = landed || retry.mayHaveLanded
                let delay = retry.failure.map { client.retry.delay(after: attempt, failure: $0) }
                    ?? client.retry.delay(after: attempt, retryAfter: retry.retryAfter)
                guard !pushStopped(), let delay else { return retry.giveUp }
                client.retry.sleep(delay)
                check = retry.mayHaveLanded
                attempt += 1
            case .send, .look:
                preconditionFailure("an answer is decided or retried")
            }
        }
    }

    /// Plans `event`, doing each lookup the planner asks for, until it says something else.
    private func settle(_ context: PushPlanner.Context, _ event: PushPlanner.Event, landed: Bool) -> PushStep {
        var lookups = PushLookups()
        while true {
            let step = PushPlanner.plan(context, event, landed: landed, lookups: lookups)
            guard case .look(let lookup) = step else { return step }
            precondition(!lookups.has(lookup), "the planner asks for each lookup once")
            switch lookup {
            case .serverCopy: lookups.serverCopy = fetch(context.op)
            case .serverCopyIgnoringCase: lookups.serverCopyIgnoringCase = fetch(context.op, ignoringCase: true)
            case .table: lookups.table = checkTable(context.op.table)
            }
        }
    }

    /// §4.8.4: `GET /tables/{table}?$top=1`.
    private func checkTable(_ table: String) -> PushLookups.Table {
        switch client.read(.probeTable(table: table), purpose: .push) {
        case .failure(let failure): return .failed(.network(failure))
        case .success(let probe):
            if let stop = client.foreignAnswer(probe) { return .failed(stop) }
            return probe.status == 404 ? .absent : .present
        }
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
            if reply.isSuccess { return .failure(client.notATableAnswer(reply)) }
            if reply.status == 401 || reply.status == 403 { return .failure(.auth(reply)) }
            if RetryPolicy.isRetryable(status: reply.status) { return .failure(.server(reply)) }
            return .failure(SyncStop(.unexpectedLookupAnswer(status: reply.status, table: op.table, id: op.id, serverMessage: reply.message)))
        }
    }

    /// The row of `op`'s item among the rows of a one-row query. A row of another id means the
    /// server ignored `$filter`; then not finding ours would prove nothing, so the push stops.
    static func serverCopy(of op: PendingOperation, in rows: [JSONValue], _ reply: TableReply) -> Result<Item?, SyncStop> {
        let items = rows.compactMap { WireItem.normalize($0)?.item }
        let ours = items.filter { ItemID.same($0.id, op.id) }
        guard ours.count == items.count else {
            return .failure(SyncStop(.idFilterIgnored(table: op.table, id: op.id, status: reply.status)))
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
}
