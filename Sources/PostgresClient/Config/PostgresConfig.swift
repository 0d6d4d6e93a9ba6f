/// Where the server listens.
public enum PostgresEndpoint: Sendable, Equatable, CustomStringConvertible {
    case tcp(host: String, port: Int)
    /// The folder of the socket; the socket itself is `DIRECTORY/.s.PGSQL.PORT`.
    case unixSocket(directory: String, port: Int)

    public var description: String {
        switch self {
        case .tcp(let host, let port): return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unixSocket(let directory, let port): return "\(directory)/.s.PGSQL.\(port)"
        }
    }
}

/// Everything needed to open a session. Build it by hand or with `PostgresConfig.parse`, which
/// reads a connection string and takes the password from `PGPASSWORD` or a password file, never
/// from the string itself (a command line shows it to every user of the machine).
public struct PostgresConfig: Sendable, Equatable {
    public var endpoint: PostgresEndpoint
    public var user: String
    public var database: String
    /// Needed only when the server asks for SCRAM-SHA-256 (trust asks for none).
    public var password: String?
    public var applicationName: String
    /// Seconds for the socket connect, the start-up and authentication together.
    public var connectTimeout: Double
    /// Seconds for each query (write, run, read). When it passes, the query is cancelled on the
    /// server and the connection closed.
    public var queryTimeout: Double

    public init(endpoint: PostgresEndpoint, user: String, database: String? = nil, password: String? = nil,
                applicationName: String = "todo", connectTimeout: Double = 10, queryTimeout: Double = 30) {
        self.endpoint = endpoint
        self.user = user
        self.database = database ?? user
        self.password = password
        self.applicationName = applicationName
        self.connectTimeout = connectTimeout
        self.queryTimeout = queryTimeout
    }

    /// The session settings every connection asks for in its start-up message, so that the text
    /// formats the client reads are fixed: ISO dates in UTC, hex bytea, UTF-8, exact floats.
    var startupParameters: [(String, String)] {
        [("user", user), ("database", database), ("application_name", applicationName),
         ("client_encoding", "UTF8"), ("DateStyle", "ISO, YMD"), ("TimeZone", "UTC"),
         ("bytea_output", "hex"), ("extra_float_digits", "3")]
    }
}

/// Whether a password line applies to an endpoint, as libpq matches `.pgpass`: a unix socket
/// matches `localhost` (and its folder), TCP matches the host name as written.
extension PostgresEndpoint {
    var passwordFileHost: [String] {
        switch self {
        case .tcp(let host, _): return [host]
        case .unixSocket(let directory, _): return ["localhost", directory]
        }
    }

    var port: Int {
        switch self {
        case .tcp(_, let port), .unixSocket(_, let port): return port
        }
    }
}
