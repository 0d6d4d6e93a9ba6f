import TodoModel

/// What one op's trip to the server came to (sync.md §4.4–§4.8). `PushPlanner` decides it from
/// the answers, `PushApplier` turns it into store writes: a value in between, so the rules can be
/// tested without a store or a server.
enum PushDecision: Equatable, Sendable {
    /// Done (§4.5). `server` is S for inserts and updates (nil for deletes); `receipt` the
    /// receipt to write, if any.
    case succeeded(server: Item?, receipt: PushRules.ReceiptKind?)
    /// The op is committed as given, sealed, and sent again in this push: an auto-merge (with
    /// its receipt), a landed undelete, an insert sent once more, an undelete that became an
    /// insert.
    case sendAgain(PendingOperation, receipt: Receipt?, merged: Bool)
    /// A conflict file with `reason: conflict` (§4.6.4): the op is unsealed and its item held.
    case recordConflict(status: Int, message: String?, server: Item?, fields: [String])
    /// A conflict file with `reason: rejected` (§4.8.3), recorded as a conflict is.
    case reject(status: Int, message: String?, server: Item?)
    /// The push stops (§4.8.2). `unsealed`: the answers prove that no request of this push for
    /// the op applied, so its marker is cleared.
    case stop(SyncStop, unsealed: Bool)
    /// Not sent because the push stopped first: a marker of this push is cleared.
    case notSent
}

/// One step of planning an op: a decision, or what the sender must do before the planner can
/// decide. The sender does the I/O and asks again; the planner never does any.
enum PushStep: Equatable, Sendable {
    case decided(PushDecision)
    /// The replay check found the request not delivered (§4.4.2): send it.
    case send
    /// Ask the server this, record the answer in `PushLookups`, and plan again.
    case look(PushLookup)
    /// The request may not have been answered (network failure, 408, 429, 5xx): wait and send
    /// again (§4.8.1), or give up when no attempt is left or the push has stopped.
    case retry(PushRetry)
}

/// The reads a push may need to decide an op (protocol §10.3).
enum PushLookup: Equatable, Sendable {
    /// The one-row query `$filter=id eq '<id>'` with deleted rows.
    case serverCopy
    /// The same query ignoring the id's case, when a 409 names an id no row spells so.
    case serverCopyIgnoringCase
    /// `GET /tables/{table}?$top=1` (§4.8.4): does the table exist?
    case table
}

/// What the lookups done so far for one answer found. A server copy is nil when the server has
/// no such row; a failure is the stop it would mean.
struct PushLookups: Equatable, Sendable {
    enum Table: Equatable, Sendable {
        case present
        case absent
        case failed(SyncStop)
    }

    var serverCopy: Result<Item?, SyncStop>?
    var serverCopyIgnoringCase: Result<Item?, SyncStop>?
    var table: Table?

    init(serverCopy: Result<Item?, SyncStop>? = nil, serverCopyIgnoringCase: Result<Item?, SyncStop>? = nil, table: Table? = nil) {
        self.serverCopy = serverCopy
        self.serverCopyIgnoringCase = serverCopyIgnoringCase
        self.table = table
    }

    /// Whether `lookup` has been done: the planner asks for each at most once.
    func has(_ lookup: PushLookup) -> Bool {
        switch lookup {
        case .serverCopy: serverCopy != nil
        case .serverCopyIgnoringCase: serverCopyIgnoringCase != nil
        case .table: table != nil
        }
    }
}

/// A retry the planner asks for. The delay is the retry policy's (it depends on the attempt).
struct PushRetry: Equatable, Sendable {
    /// The failure the delay depends on; nil for a retryable status, which may say `Retry-After`.
    var failure: TransportFailure?
    var retryAfter: Double?
    /// The attempt may have reached the server: a replay check goes before the next one, and a
    /// stop from now on leaves the op sealed.
    var mayHaveLanded: Bool
    /// The decision when no retry follows.
    var giveUp: PushDecision
}
