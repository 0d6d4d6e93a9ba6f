/// What a server operator chooses (see `todo-server --help`).
public struct ServiceConfiguration: Sendable {
    /// When set, every non-OPTIONS request must carry it as X-ZUMO-APPLICATION (protocol §3.8).
    public var appKey: String?
    /// When set, X-ZUMO-MASTER with it makes a request admin (issue 17 item 7).
    public var masterKey: String?
    /// Who may do what to each table (`--access-config`); nil: today's rule, the app key for
    /// everything when there is one, else public (`AccessPolicy.builtIn`).
    public var access: AccessPolicy?
    /// The users whose tokens X-ZUMO-AUTH carries; nil: no token is valid.
    public var users: UserDirectory?
    /// Tables created at start, matched ignoring case.
    public var tables: [String] = ["todoitem"]
    /// Settings of the tables in `tables`, by lower-case name (issue 17 item 6); a table without an
    /// entry has soft delete, string ids and a dynamic schema.
    public var tableOptions: [String: TableOptions] = [:]
    /// Where `tableOptions` came from, for messages: the config file, or `--tables`.
    public var tableOptionsSource: String?
    /// A POST insert to a valid but unknown table name creates the table (protocol §3.1.2).
    public var dynamicTables = false
    /// Columns one table may have (`--max-columns`; protocol §3.3's 1024 by default): beyond it, 400.
    public var maxColumns = SchemaCheck.defaultMaximumColumns
    /// P: rows per page without `$top` (1…1000).
    public var pageSize = 50
    public var servesMobileServices = true
    public var servesMobileApps = true
    /// Base URL for `Location` and `Link` behind a reverse proxy; else `http://<Host>`.
    public var publicURL: String?
    /// Origins that get CORS headers (none by default).
    public var allowedOrigins: [String] = []
    public var serverVersion = "todo-server/0.1.0"

    public init() {}

    var accessPolicy: AccessPolicy { access ?? .builtIn(hasAppKey: appKey != nil) }
}
