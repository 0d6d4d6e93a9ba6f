import TodoBasics

/// A fixed-size pool of sessions to one server, safe to share between threads.
///
/// A checkout takes an idle connection, or opens one while fewer than `size` are open, or waits
/// for a checkin (up to `checkoutTimeout`). A connection that broke (lost, ended by the server,
/// timed out) is discarded at checkin, and an idle one that the server ended while it sat in the
/// pool (pg_terminate_backend, a restart, a failover) is discarded at checkout, so the caller gets
/// a working session opened afresh. Opening happens outside the lock, so one slow connect does
/// not hold up checkins.
public final class PostgresPool: Sendable {
    public let config: PostgresConfig
    public let size: Int
    public let checkoutTimeout: Double
    private let monitor: PoolMonitor<State>

    private struct State {
        var idle: [PostgresConnection] = []
        var open = 0
        var opened = 0
        var closed = false
    }

    public init(_ config: PostgresConfig, size: Int, checkoutTimeout: Double = 10) {
        precondition(size >= 1, "a pool needs at least one connection")
        self.config = config
        self.size = size
        self.checkoutTimeout = checkoutTimeout
        monitor = PoolMonitor(State())
    }

    /// How many sessions the pool has opened so far (reconnects included; failed attempts not).
    public var connectionsOpened: Int { monitor.withLock { $0.opened } }
    /// How many are open now, idle or checked out.
    public var openConnections: Int { monitor.withLock { $0.open } }

    /// Round trips and statements made by the idle connections, summed: what a request cost, for
    /// tests and benchmarks that read it before and after with every connection back in the pool.
    public var idleCounters: (roundTrips: Int, statements: Int) {
        monitor.withLock { state in
            state.idle.reduce((0, 0)) { ($0.0 + $1.roundTrips, $0.1 + $1.statementsSent) }
        }
    }

    private enum Step {
        case reuse(PostgresConnection)
        case open
        case closed
    }

    /// A connection for the caller alone, until `checkin`. Throws `.cannotConnect`,
    /// `.authenticationFailed`, or `.poolUnavailable` when none frees up in time.
    public func checkout() throws(PostgresError) -> PostgresConnection {
        let deadline = Deadline(secondsFromNow: checkoutTimeout)
        while true {
            let step = monitor.waitFor(until: deadline) { state -> Step? in
                if state.closed { return .closed }
                if let connection = state.idle.popLast() { return .reuse(connection) }
                guard state.open < size else { return nil }
                state.open += 1
                return .open
            }
            switch step {
            case nil:
                throw .poolUnavailable("all \(size) connections stayed busy for \(deadline.text) (checkout timeout): "
                                       + "make the pool larger or the transactions shorter")
            case .closed?:
                throw .poolUnavailable("the pool is closed")
            case .reuse(let connection)?:
                if connection.isReusable { return connection }
                discard(connection)
            case .open?:
                do {
                    let connection = try PostgresConnection.connect(config)
                    monitor.withLock { $0.opened += 1 }
                    return connection
                } catch {
                    monitor.withLock { $0.open -= 1 }
                    monitor.signal()
                    throw error
                }
            }
        }
    }

    /// Gives a connection back. A broken one, or one left inside a transaction, is closed.
    public func checkin(_ connection: PostgresConnection) {
        guard !connection.isBroken, connection.transactionStatus == UInt8(ascii: "I") else {
            discard(connection)
            return
        }
        let keep = monitor.withLock { state -> Bool in
            if state.closed { return false }
            state.idle.append(connection)
            return true
        }
        if keep { monitor.signal() } else { discard(connection) }
    }

    private func discard(_ connection: PostgresConnection) {
        connection.close()
        monitor.withLock { $0.open -= 1 }
        monitor.signal()
    }

    /// Runs `body` with a checked-out connection and checks it in afterwards, whatever happens.
    public func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try checkout()
        defer { checkin(connection) }
        return try body(connection)
    }

    public func query(_ sql: String, _ parameters: [PostgresValue] = []) throws(PostgresError) -> [PostgresRow] {
        let connection = try checkout()
        defer { checkin(connection) }
        return try connection.query(sql, parameters)
    }

    @discardableResult
    public func execute(_ sql: String, _ parameters: [PostgresValue] = []) throws(PostgresError) -> Int {
        let connection = try checkout()
        defer { checkin(connection) }
        return try connection.execute(sql, parameters)
    }

    /// A transaction on a pooled connection, run again from the start (up to `maxAttempts` in all)
    /// after a serialization failure or deadlock, and also after the session was lost or ended
    /// by the server before COMMIT (a restart or a Patroni failover), on a fresh connection: the
    /// server rolled the attempt back, so running it again is safe. A loss during COMMIT is not
    /// retried (`.transactionOutcomeUnknown`).
    public func transaction<T>(isolation: PostgresIsolation = .readCommitted, maxAttempts: Int = 5,
                               _ body: (PostgresConnection) throws -> T) throws -> T {
        var attempt = 1
        while true {
            do {
                return try withConnection { connection in
                    try TransactionAttempt.run(on: connection, isolation: isolation, body)
                }
            } catch {
                guard let failure = error as? PostgresError, attempt < maxAttempts, Self.worthAnotherAttempt(failure) else {
                    throw error
                }
                TransactionAttempt.backOff(attempt)
                attempt += 1
            }
        }
    }

    static func worthAnotherAttempt(_ error: PostgresError) -> Bool {
        switch error {
        case .adminShutdown, .connectionLost: return true
        default: return error.isTransactionConflict || error.sqlState == SQLState.invalidStatementName
        }
    }

    /// Closes the idle connections and refuses further checkouts; checked-out ones close at checkin.
    public func close() {
        let idle = monitor.withLock { state -> [PostgresConnection] in
            state.closed = true
            defer { state.idle = [] }
            state.open -= state.idle.count
            return state.idle
        }
        for connection in idle { connection.close() }
        monitor.broadcast()
    }
}
