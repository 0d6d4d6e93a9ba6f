/// Reads `postgres://USER@HOST:PORT/DB?param=value` and `postgresql:///DB?host=/run/postgresql`
/// (a host that starts with `/` is a unix socket folder), as libpq does.
///
/// Parameters: `host`, `port`, `user`, `dbname`, `application_name`, `connect_timeout`,
/// `query_timeout` (ours, seconds), `passfile`, `sslmode` (`disable`, `allow`, `prefer`: this
/// client speaks no TLS; `require` and stronger are refused, see the README). Unknown parameters
/// are refused, so a typo never passes silently.
///
/// The password: a password in the string is refused; `PGPASSWORD` if set, else the first
/// matching line of the password file (`passfile`, else `PGPASSFILE`, else `~/.pgpass`; libpq's
/// format `host:port:database:user:password`, `*` matches anything).
extension PostgresConfig {
    public static let defaultSocketDirectory = "/run/postgresql"

    public static func parse(_ text: String, environment: [String: String]) throws(PostgresError) -> PostgresConfig {
        let schemes = ["postgres://", "postgresql://"]
        guard let scheme = schemes.first(where: { text.hasPrefix($0) }) else {
            throw .invalidConfiguration("a connection string starts with postgres:// or postgresql://, not \"\(text.prefix(20))\"")
        }
        var rest = Substring(text.dropFirst(scheme.count))
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        var user: String?, host: String?, port: Int?
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            guard !userInfo.contains(":") else {
                throw .invalidConfiguration("the connection string holds a password; remove it and set PGPASSWORD "
                                            + "or a password file (passfile=PATH) instead: command lines are visible to everyone")
            }
            user = try decodePercent(userInfo)
            rest = rest[rest.index(after: at)...]
        }
        (host, port) = try splitHostPort(rest)
        var database = path.isEmpty ? nil : try decodePercent(path)
        var applicationName = "todo", connectTimeout = 10.0, queryTimeout = 30.0
        var passfile: String?

        for pair in query.split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try decodePercent(parts[0]), value = try decodePercent(parts.count > 1 ? parts[1] : "")
            switch name {
            case "host": host = value
            case "port": port = try number(value, name: "port").map(Int.init)
            case "user": user = value
            case "dbname": database = value
            case "application_name": applicationName = value
            case "connect_timeout": connectTimeout = try number(value, name: name) ?? connectTimeout
            case "query_timeout": queryTimeout = try number(value, name: name) ?? queryTimeout
            case "passfile": passfile = value
            case "sslmode": try checkSSLMode(value)
            case "password":
                throw .invalidConfiguration("the connection string holds a password; remove it and set PGPASSWORD "
                                            + "or a password file (passfile=PATH) instead")
            default:
                throw .invalidConfiguration("unknown connection parameter \"\(name)\"; known: host, port, user, dbname, "
                                            + "application_name, connect_timeout, query_timeout, passfile, sslmode")
            }
        }
        let resolvedPort = port ?? 5432
        guard (1...65535).contains(resolvedPort) else { throw .invalidConfiguration("port \(resolvedPort) is out of range") }
        let endpoint: PostgresEndpoint
        if let host, !host.isEmpty, !host.hasPrefix("/") {
            endpoint = .tcp(host: host, port: resolvedPort)
        } else {
            endpoint = .unixSocket(directory: host.flatMap { $0.isEmpty ? nil : $0 } ?? defaultSocketDirectory, port: resolvedPort)
        }
        guard let resolvedUser = user ?? environment["PGUSER"] ?? environment["USER"], !resolvedUser.isEmpty else {
            throw .invalidConfiguration("no user: write postgres://USER@HOST/DB, or set PGUSER")
        }
        var config = PostgresConfig(endpoint: endpoint, user: resolvedUser, database: database ?? resolvedUser,
                                    applicationName: applicationName, connectTimeout: connectTimeout, queryTimeout: queryTimeout)
        config.password = try PasswordSource.password(for: config, passfile: passfile, environment: environment)
        return config
    }

    /// `host`, `host:port`, `[::1]:port`, or empty; a socket folder may come percent-encoded (`%2Frun%2Fpostgresql`).
    private static func splitHostPort(_ authority: Substring) throws(PostgresError) -> (String?, Int?) {
        if authority.isEmpty { return (nil, nil) }
        var host = authority, portText: Substring?
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        var port: Int?
        if let portText {
            guard let value = Int(portText) else { throw .invalidConfiguration("port \"\(portText)\" is not a number") }
            port = value
        }
        return (host.isEmpty ? nil : try decodePercent(host), port)
    }

    private static func checkSSLMode(_ mode: String) throws(PostgresError) {
        switch mode {
        case "disable", "allow", "prefer": return
        case "require", "verify-ca", "verify-full":
            throw .invalidConfiguration("sslmode=\(mode) needs TLS, which this client does not speak (the project has no "
                                        + "package dependencies): use a unix socket, a trusted network, or a TLS tunnel "
                                        + "such as stunnel or ssh -L to the server, and sslmode=disable (README, PostgreSQL client)")
        default:
            throw .invalidConfiguration("unknown sslmode \"\(mode)\"; this client accepts disable, allow or prefer (without TLS)")
        }
    }

    private static func number(_ text: String, name: String) throws(PostgresError) -> Double? {
        if text.isEmpty { return nil }
        guard let value = Double(text), value > 0, value.isFinite else {
            throw .invalidConfiguration("\(name) \"\(text)\" is not a positive number")
        }
        return value
    }

    static func decodePercent(_ text: Substring) throws(PostgresError) -> String {
        var out: [UInt8] = []
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%") {
                guard i + 2 < bytes.count, let value = UInt8(String(decoding: bytes[(i + 1)...(i + 2)], as: UTF8.self), radix: 16) else {
                    throw .invalidConfiguration("bad percent-encoding in \"\(text)\"")
                }
                out.append(value)
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
