import TodoBasics

/// One session with a PostgreSQL server over protocol 3.0.
///
/// Every query goes through the extended protocol (Parse, Bind, Describe, Execute, Sync) with its
/// values bound as parameters: SQL text and values never mix, and Parse refuses more than one
/// statement, so no value can smuggle in SQL.
///
/// Not for concurrent use: one caller at a time (a `PostgresPool` hands each connection to one
/// caller). After an error that `closesConnection`, `isBroken` is true and every call fails; take
/// a new connection.
public final class PostgresConnection: @unchecked Sendable {
    public let config: PostgresConfig
    /// The backend's process id (what `pg_terminate_backend` takes).
    public internal(set) var processID: Int32 = 0
    var secretKey: Int32 = 0
    /// What the server reported with ParameterStatus (server_version, in_hot_standby…).
    public internal(set) var serverParameters: [String: String] = [:]
    /// Round trips made (each `run`): what a write costs, for tests and benchmarks.
    public private(set) var roundTrips = 0
    /// Statements sent (BEGIN and COMMIT included): the other part of what a write costs the
    /// server, which parses, plans or binds, and runs each.
    public private(set) var statementsSent = 0
    /// True once the session is gone (lost, ended by the server, timed out, or closed).
    public private(set) var isBroken = false
    /// `I` idle, `T` in a transaction, `E` in a failed transaction: from the last ReadyForQuery.
    var transactionStatus = UInt8(ascii: "I")
    /// The statements this session has prepared, by text and parameter types. A server keeps only
    /// a few dozen kinds of statement, so the cache stays small; past its size the unnamed one is used.
    private var prepared: [PreparedKey: String] = [:]
    /// A BEGIN not sent yet: it leaves with the next statement (`TransactionAttempt`).
    var deferredBegin: String?
    /// See `runBeforeCommit`.
    private(set) var beforeCommit: [(sql: String, parameters: [PostgresValue])] = []

    /// Runs `sql` just before this transaction's COMMIT, in the same round trip, after the
    /// statements left before it, its result unread: an error of it rolls the transaction back and
    /// is what the commit throws. Why: a write's UPDATE or INSERT whose result nobody reads costs
    /// no round trip of its own.
    public func runBeforeCommit(_ sql: String, _ parameters: [PostgresValue] = []) {
        beforeCommit.append((sql, parameters))
    }

    /// Forgets the statements left for a COMMIT that will not come (the body failed).
    func dropBeforeCommit() { beforeCommit = [] }
    static let maximumPrepared = 128

    private struct PreparedKey: Hashable {
        let sql: String
        let types: [UInt32]
    }
    let socket: WireSocket
    private var brokenReason = ""

    init(config: PostgresConfig, socket: WireSocket) {
        self.config = config
        self.socket = socket
    }

    deinit { socket.close() }

    /// Opens a session: socket, start-up, authentication (trust or SCRAM-SHA-256), all within
    /// `config.connectTimeout`. Throws `.cannotConnect` or `.authenticationFailed`.
    public static func connect(_ config: PostgresConfig) throws(PostgresError) -> PostgresConnection {
        let deadline = Deadline(secondsFromNow: config.connectTimeout)
        let socket = try SocketOpener.open(config.endpoint, until: deadline).get()
        let connection = PostgresConnection(config: config, socket: socket)
        do {
            try Startup(connection: connection, deadline: deadline).run()
        } catch {
            connection.markBroken("start-up failed")
            throw error
        }
        return connection
    }

    /// The rows of one statement (none for statements that return none).
    public func query(_ sql: String, _ parameters: [PostgresValue] = []) throws(PostgresError) -> [PostgresRow] {
        try run(sql, parameters).rows
    }

    /// Runs one statement and returns the number of rows it inserted, updated, deleted or selected.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [PostgresValue] = []) throws(PostgresError) -> Int {
        try run(sql, parameters).affectedRows
    }

    /// Rows, columns and the command tag of one statement.
    public func run(_ sql: String, _ parameters: [PostgresValue] = []) throws(PostgresError) -> PostgresResult {
        try runPipeline([(sql, parameters)])[0]
    }

    /// Runs statements one after another in one round trip, and returns the result of each. If
    /// one fails, the server skips the rest and its error is thrown. Why: a write enters its
    /// table's gate and locks its row in one round trip instead of two.
    public func runPipeline(_ statements: [(sql: String, parameters: [PostgresValue])]) throws(PostgresError) -> [PostgresResult] {
        precondition(!statements.isEmpty, "a pipeline of no statement")
        let sql = statements[statements.count - 1].sql
        guard !isBroken else {
            throw .connectionLost("this connection is closed (\(brokenReason)); take a new one")
        }
        var bytes: [UInt8] = []
        var preparing: [(PreparedKey, String)] = []
        // Statements sent ahead of this one in the same round trip; their results are not read.
        var ahead = 0
        if let begin = deferredBegin {
            // The transaction's BEGIN goes with its first statement: one round trip less.
            deferredBegin = nil
            try append(begin, [], to: &bytes, &preparing)
            bytes += FrontendMessage.execute.encoded()
            ahead += 1
        }
        if sql == "COMMIT" {
            // Statements the transaction's body left to run just before COMMIT, in the same round
            // trip; if one fails, COMMIT is skipped (the server skips to Sync) and nothing commits.
            let left = beforeCommit
            beforeCommit = []
            for statement in left {
                try append(statement.sql, statement.parameters, to: &bytes, &preparing)
                bytes += FrontendMessage.execute.encoded()
                ahead += 1
            }
        }
        for statement in statements {
            try append(statement.sql, statement.parameters, to: &bytes, &preparing)
            bytes += FrontendMessage.describePortal.encoded()
            bytes += FrontendMessage.execute.encoded()
        }
        bytes += FrontendMessage.sync.encoded()

        let deadline = Deadline(secondsFromNow: config.queryTimeout)
        roundTrips += 1
        do {
            try socket.writeAll(bytes, until: deadline)
        } catch {
            throw failure(error, sql: sql, deadline: deadline)
        }
        var results: [PostgresResult] = []
        var result = PostgresResult()
        var statementError: PostgresServerError?
        while true {
            let message: BackendMessage
            do {
                message = try nextMessage(until: deadline)
            } catch let error as WireFailure {
                throw failure(error, sql: sql, deadline: deadline)
            } catch let error as PostgresError {
                markBroken("protocol error")
                throw error
            } catch {
                throw .protocolViolation("\(error)")
            }
            switch message {
            case .rowDescription(let columns):
                result.columns = columns
            case .dataRow where ahead > 0:
                continue
            case .commandComplete where ahead > 0:
                ahead -= 1
            case .dataRow(let cells):
                guard cells.count == result.columns.count else {
                    markBroken("protocol error")
                    throw .protocolViolation("a row has \(cells.count) cells for \(result.columns.count) columns")
                }
                result.rows.append(PostgresRow(columns: result.columns, cells: cells))
            case .commandComplete(let tag):
                result.commandTag = tag
                results.append(result)
                result = PostgresResult()
            case .error(let error) where Self.endsSession(error):
                throw sessionEnded(by: error)
            case .error(let error):
                statementError = error  // the server skips to Sync; ReadyForQuery follows
                // A pooler that does not keep named statements (PgBouncer in transaction mode):
                // forget them, so the next attempt parses again.
                if error.sqlState == SQLState.invalidStatementName { prepared = [:] }
            case .readyForQuery(let status):
                transactionStatus = status
                if let statementError { throw .server(statementError) }
                guard results.count == statements.count else {
                    markBroken("protocol error")
                    throw .protocolViolation("\(results.count) results for \(statements.count) statements")
                }
                return results
            case .parameterStatus(let name, let value):
                serverParameters[name] = value
            case .parseComplete:
                // Named statements outlive a rollback: kept for the session, parsed and planned once.
                if !preparing.isEmpty {
                    let (key, name) = preparing.removeFirst()
                    if !name.isEmpty { prepared[key] = name }
                }
            case .emptyQueryResponse where ahead > 0:
                ahead -= 1
            case .emptyQueryResponse:
                results.append(result)
                result = PostgresResult()
            case .bindComplete, .noData, .notice, .ignored:
                continue
            case .authentication, .backendKeyData:
                markBroken("protocol error")
                throw .protocolViolation("the server sent a start-up message in the middle of a query")
            }
        }
    }

    /// Parse (unless this session has the statement already) and Bind of one statement.
    private func append(_ sql: String, _ parameters: [PostgresValue], to bytes: inout [UInt8],
                        _ preparing: inout [(PreparedKey, String)]) throws(PostgresError) {
        var encoded: [[UInt8]?] = []
        for (index, parameter) in parameters.enumerated() { encoded.append(try parameter.encoded(position: index + 1)) }
        let types = parameters.map(\.typeOID)
        let key = PreparedKey(sql: sql, types: types)
        statementsSent += 1
        let statement: String
        if let known = prepared[key] {
            statement = known
        } else {
            let taken = prepared.count + preparing.count
            statement = taken < Self.maximumPrepared ? "todo_\(taken + 1)" : ""
            preparing.append((key, statement))
            bytes += FrontendMessage.parse(statement: statement, sql: sql, parameterTypes: types).encoded()
        }
        bytes += FrontendMessage.bind(statement: statement, parameters: encoded).encoded()
    }

    /// Ends the session politely (Terminate) and closes the socket. Safe to call twice.
    public func close() {
        if !isBroken {
            try? socket.writeAll(FrontendMessage.terminate.encoded(), until: Deadline(secondsFromNow: 1))
        }
        markBroken("closed by the client")
    }

    /// For a pool: false when the session is gone, or when the server said something while the
    /// connection sat idle (a FATAL message before closing, as after pg_terminate_backend or a
    /// shutdown), so it must not be reused.
    var isReusable: Bool {
        !isBroken && transactionStatus == UInt8(ascii: "I") && !socket.hasUnexpectedInput
    }

    // MARK: - Messages and failures

    func nextMessage(until deadline: Deadline) throws -> BackendMessage {
        let header = try socket.read(5, until: deadline)
        let type = header[header.startIndex]
        var length = 0
        for byte in header.dropFirst() { length = length << 8 | Int(byte) }
        guard length >= 4, length <= 1 << 30 else {
            throw PostgresError.protocolViolation("a message of type \(type) claims a length of \(length) bytes")
        }
        let body = try socket.read(length - 4, until: deadline)
        return try BackendMessage.decode(type: type, body: body)
    }

    func markBroken(_ reason: String) {
        if !isBroken { brokenReason = reason }
        isBroken = true
        socket.close()
    }

    /// FATAL and PANIC end the session; the server closes the socket after sending them.
    static func endsSession(_ error: PostgresServerError) -> Bool {
        error.severity == "FATAL" || error.severity == "PANIC"
    }

    func sessionEnded(by error: PostgresServerError) -> PostgresError {
        markBroken("ended by the server: \(error.sqlState)")
        if SQLState.shutdownCodes.contains(error.sqlState) { return .adminShutdown(error) }
        return .connectionLost("the server ended the session: \(error)")
    }

    /// A socket failure during a query. A timeout cancels the query on the server (a separate
    /// connection carrying the backend's key), since closing our socket alone would let it run on.
    /// A write that failed because the server had already ended the session reports the server's
    /// reason (usually 57P01) when it is still readable.
    private func failure(_ error: WireFailure, sql: String, deadline: Deadline) -> PostgresError {
        let statement = sql.count > 80 ? "\(sql.prefix(80))…" : sql
        switch error {
        case .timedOut:
            PostgresConnection.cancel(endpoint: config.endpoint, processID: processID, secretKey: secretKey)
            markBroken("query timeout")
            return .timedOut("the query did not finish within \(deadline.text) (query timeout); it was cancelled "
                             + "and the connection closed: \(statement)")
        case .closed(let reason):
            if socket.isOpen, let message = try? nextMessage(until: Deadline(secondsFromNow: 0.2)),
               case .error(let serverError) = message, Self.endsSession(serverError) {
                return sessionEnded(by: serverError)
            }
            markBroken("connection lost")
            return .connectionLost("\(reason), while running: \(statement). Connect again; if this was inside "
                                   + "a transaction, it was rolled back")
        }
    }

    /// Best effort: asks the server to cancel the backend's running query (CancelRequest, §55.2.7).
    static func cancel(endpoint: PostgresEndpoint, processID: Int32, secretKey: Int32) {
        guard processID != 0, case .success(let socket) = SocketOpener.open(endpoint, until: Deadline(secondsFromNow: 2)) else {
            return
        }
        try? socket.writeAll(FrontendMessage.cancel(processID: processID, secretKey: secretKey).encoded(),
                             until: Deadline(secondsFromNow: 2))
        _ = try? socket.read(1, until: Deadline(secondsFromNow: 2))  // the server closes once it has read the request
        socket.close()
    }
}

/// What one statement returned.
public struct PostgresResult: Sendable {
    public var columns: [PostgresColumn] = []
    public var rows: [PostgresRow] = []
    /// `INSERT 0 1`, `UPDATE 3`, `SELECT 2`, `BEGIN`…
    public var commandTag = ""

    /// The count at the end of the command tag (0 when it has none).
    public var affectedRows: Int {
        commandTag.split(separator: " ").last.flatMap { Int($0) } ?? 0
    }
}
