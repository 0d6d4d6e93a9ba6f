/// An ErrorResponse from the server, field by field (protocol §55.8 "Error and Notice Message Fields").
public struct PostgresServerError: Sendable, Equatable, CustomStringConvertible {
    /// SQLSTATE: `23505` unique violation, `40001` serialization failure, `57P01` admin shutdown…
    public var sqlState: String
    /// ERROR, FATAL or PANIC (never localized: the `V` field).
    public var severity: String
    public var message: String
    public var detail: String?
    public var hint: String?
    public var constraint: String?
    public var schema: String?
    public var table: String?
    public var column: String?
    /// 1-based character position in the statement text, for syntax errors.
    public var position: Int?

    public init(sqlState: String, severity: String, message: String, detail: String? = nil, hint: String? = nil,
                constraint: String? = nil, schema: String? = nil, table: String? = nil, column: String? = nil,
                position: Int? = nil) {
        self.sqlState = sqlState
        self.severity = severity
        self.message = message
        self.detail = detail
        self.hint = hint
        self.constraint = constraint
        self.schema = schema
        self.table = table
        self.column = column
        self.position = position
    }

    /// `ERROR 23505: duplicate key value violates unique constraint "t_pkey" (Key (id)=(1) already exists.)`
    public var description: String {
        var text = "\(severity) \(sqlState): \(message)"
        if let detail { text += " (\(detail))" }
        if let hint { text += " Hint: \(hint)" }
        return text
    }
}

/// Everything the client throws. Each case says what went wrong and, in its message, what to do.
///
/// After `.connectionLost`, `.adminShutdown`, `.timedOut`, `.protocolViolation` and
/// `.transactionOutcomeUnknown` the connection is closed (`isBroken`); a pool drops it and opens
/// another. After `.server` the connection is still usable.
public enum PostgresError: Error, Sendable, CustomStringConvertible {
    /// The statement failed; the connection is fine. See `sqlState`, `isUniqueViolation`, `constraint`.
    case server(PostgresServerError)
    /// The server ended the session with 57P01 (pg_terminate_backend, a fast shutdown, a Patroni
    /// demotion), 57P02 (crash of another backend) or 57P03 (not accepting connections yet).
    /// Reconnect: a restarted or newly promoted server will take the next connection.
    case adminShutdown(PostgresServerError)
    /// The socket closed or failed in the middle of a conversation.
    case connectionLost(String)
    /// No session could be opened: nothing listens there, the server refused us, the database is missing.
    case cannotConnect(String)
    /// The server refused the credentials (28P01, 28000) or asked for a method this client does not speak.
    case authenticationFailed(String)
    /// The connect or query timeout passed; a running query was cancelled and the connection closed.
    case timedOut(String)
    /// The connection broke while COMMIT was on its way: the transaction may or may not have committed.
    case transactionOutcomeUnknown(String)
    /// The server sent something this client does not understand.
    case protocolViolation(String)
    /// The connection string or the configuration is unusable.
    case invalidConfiguration(String)
    /// A bound parameter cannot be sent (a NUL in text, a numeric that is not a number); nothing was sent.
    case invalidParameter(String)
    /// A column could not be decoded as the type asked for (or was NULL where a value was needed).
    case decoding(String)
    /// The pool had no connection to give within its checkout timeout, or was closed.
    case poolUnavailable(String)

    /// The server's error, for `.server` and `.adminShutdown`.
    public var serverError: PostgresServerError? {
        switch self {
        case .server(let error), .adminShutdown(let error): return error
        default: return nil
        }
    }

    public var sqlState: String? { serverError?.sqlState }
    /// The constraint a unique, foreign-key or check violation names.
    public var constraint: String? { serverError?.constraint }
    /// 23505.
    public var isUniqueViolation: Bool { sqlState == SQLState.uniqueViolation }
    /// 40001 or 40P01: the transaction lost to a concurrent one and should be run again from the start.
    public var isTransactionConflict: Bool {
        sqlState == SQLState.serializationFailure || sqlState == SQLState.deadlockDetected
    }
    /// 25006: the server is a read-only standby, as right after a failover moved the primary.
    public var isReadOnlyStandby: Bool { sqlState == SQLState.readOnlySQLTransaction }

    /// True when the session is gone and a new connection is needed.
    public var closesConnection: Bool {
        switch self {
        case .adminShutdown, .connectionLost, .timedOut, .protocolViolation, .transactionOutcomeUnknown, .cannotConnect,
             .authenticationFailed:
            return true
        case .server, .invalidConfiguration, .invalidParameter, .decoding, .poolUnavailable:
            return false
        }
    }

    public var description: String {
        switch self {
        case .server(let error):
            var text = "PostgreSQL: \(error)"
            if error.sqlState == SQLState.readOnlySQLTransaction {
                text += " The server is a read-only standby (after a failover?): connect to the primary."
            }
            return text
        case .adminShutdown(let error):
            return "PostgreSQL ended the session (\(error.sqlState): \(error.message)); the server is shutting down,"
                + " restarting or failing over, or an administrator terminated the backend: connect again"
        case .connectionLost(let reason): return "PostgreSQL connection lost: \(reason)"
        case .cannotConnect(let reason): return "cannot connect to PostgreSQL: \(reason)"
        case .authenticationFailed(let reason): return "PostgreSQL authentication failed: \(reason)"
        case .timedOut(let reason): return "PostgreSQL timed out: \(reason)"
        case .transactionOutcomeUnknown(let reason):
            return "PostgreSQL: the connection broke during COMMIT, so the transaction may or may not have committed: "
                + "\(reason). Check the data before running it again"
        case .protocolViolation(let reason): return "PostgreSQL protocol error: \(reason)"
        case .invalidConfiguration(let reason): return "PostgreSQL configuration: \(reason)"
        case .invalidParameter(let reason): return "PostgreSQL parameter: \(reason)"
        case .decoding(let reason): return "PostgreSQL column: \(reason)"
        case .poolUnavailable(let reason): return "PostgreSQL pool: \(reason)"
        }
    }
}

/// The SQLSTATE codes the client and its callers act on (PostgreSQL Appendix A).
public enum SQLState {
    public static let uniqueViolation = "23505"
    public static let foreignKeyViolation = "23503"
    public static let checkViolation = "23514"
    public static let notNullViolation = "23502"
    public static let serializationFailure = "40001"
    public static let deadlockDetected = "40P01"
    /// A named statement the session does not have (a pooler in between dropped it).
    public static let invalidStatementName = "26000"
    public static let readOnlySQLTransaction = "25006"
    public static let queryCanceled = "57014"
    public static let adminShutdown = "57P01"
    public static let crashShutdown = "57P02"
    public static let cannotConnectNow = "57P03"
    public static let invalidPassword = "28P01"
    public static let invalidAuthorization = "28000"
    public static let invalidCatalogName = "3D000"
    public static let tooManyConnections = "53300"

    /// The codes that mean "this server is going away or not there yet": reconnect.
    static let shutdownCodes: Set<String> = [adminShutdown, crashShutdown, cannotConnectNow]
}
