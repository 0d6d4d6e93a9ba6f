#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import TableProtocol
import TodoBasics

/// `todo-server`: parses options, opens the data directory, serves until SIGINT/SIGTERM, then
/// stops after in-flight requests finish. Returns the exit code.
public enum ServerMain {
    public static let usage = """
        usage: todo-server [--data DIR] [--store postgres://USER@HOST:PORT/DB] [--port N] [--host ADDR] [--app-key-file FILE] [--tables a,b]
                           [--table-config FILE] [--master-key-file FILE] [--access-config FILE]
                           [--dynamic-tables] [--page-size N] [--public-url URL] [--trusted-proxy ADDR,...] [--proxy-protocol]
                           [--generations g1,g2]
                           [--max-tables N] [--max-columns N] [--max-rows-per-table N]
                           [--max-row-size SIZE] [--max-memory SIZE]
                           [--max-connections N] [--max-connections-per-address N]
                           [--header-timeout S] [--idle-timeout S]
               todo-server --version
               todo-server check|repair [--data DIR]
               todo-server user add|token|rm NAME [--data DIR]
               todo-server user list [--data DIR]
               todo-server migrate --from DIR --to postgres://USER@HOST:PORT/DB

        A durable table server speaking the Azure Mobile Services (G1) and Mobile Apps 2.0 (G2)
        table protocol. Prints 'listening on http://HOST:PORT' once it serves; logs one line per
        request to stderr (client address, method, path, status, milliseconds); stops cleanly on SIGINT or SIGTERM.

        Options:
          --data DIR          data directory, created if missing (default: ./todo-server-data)
          --store URL         keep the tables in PostgreSQL instead: postgres://USER@HOST:PORT/DB or
                              postgresql:///DB?host=/socket/dir; the password from PGPASSWORD or a
                              password file (passfile=PATH in the URL, PGPASSFILE, ~/.pgpass)
          --port N            port; 0 picks a free one (default: 8080)
          --host ADDR         IPv4 address to listen on (default: 127.0.0.1)
          --app-key-file FILE require X-ZUMO-APPLICATION: the first line of FILE (keep it mode 0600);
                              or set TODO_SERVER_APP_KEY. (--app-key KEY works too, but every user of
                              the machine can read a command line.)
          --tables a,b        tables to serve (default: todoitem); a name may carry settings after
                              ':', e.g. counters:autoIncrement:hardDelete (softDelete or hardDelete,
                              string or autoIncrement ids, dynamicSchema or fixedSchema)
          --table-config FILE per-table settings as JSON, e.g. {"tables": {"counters": {"softDelete":
                              false, "idType": "autoIncrement"}}}; its tables are served too. A table's
                              log keeps softDelete and idType: a start that would change them stops
          --master-key-file FILE  X-ZUMO-MASTER with the first line of FILE is admin (or set
                              TODO_SERVER_MASTER_KEY)
          --access-config FILE  who may read, insert, update, delete and undelete in each table:
                              public, application, user or admin, and per-table owner mode
                              (see the README); without it, the app key opens everything
          --dynamic-tables    a POST to an unknown table name creates the table
          --page-size N       rows per page without $top, 1 to 1000 (default: 50)
          --public-url URL    base URL for Location and Link headers behind a proxy
          --trusted-proxy A,B IPv4 addresses of reverse proxies: from them, X-Forwarded-For names
                              the client in the request log (from anyone else it is ignored)
          --proxy-protocol    every connection starts with a PROXY protocol header (v1 or v2), as a
                              TCP proxy sends it (nginx's stream module: proxy_protocol on;); its
                              source is the client in the request log. A connection without one
                              gets 400 and is closed. Only for a port that only the proxy can reach
          --generations LIST  g1, g2 or g1,g2 (default: g1,g2)
          --quiet             no per-request log lines

        Limits (a write beyond one is refused, 507 or 413, and changes nothing; see the README):
          --max-tables N                   tables, counting those --dynamic-tables creates (default: 1000)
          --max-columns N                  columns per table, at most 1024 (default: 1024)
          --max-rows-per-table N           rows per table, deleted ones included (default: 1000000)
          --max-row-size SIZE              one row's id, names and values (default: 1M)
          --max-memory SIZE                estimated memory of all rows (default: 1G)

        Connections (an idle or slow-header connection gives its slot to a new one when full):
          --max-connections N              at most N connections at once (default: 1024)
          --max-connections-per-address N  at most N from one address (default: 64; behind a
                                           reverse proxy every client shares the proxy's address)
          --header-timeout S               seconds for a request's head to arrive (default: 10)
          --idle-timeout S                 seconds a keep-alive connection may idle (default: 60)

        'todo-server user add NAME' adds a user and prints their token (X-ZUMO-AUTH) once; 'user token
        NAME' issues a new one, 'user rm NAME' removes the user, 'user list' lists them. A running
        server sees the change at its next request (see 'user --help').

        'todo-server migrate' copies a data directory's tables into PostgreSQL for --store, keeping
        versions and times, so replicas go on syncing (see 'migrate --help').

        'todo-server check' reports damaged records in the data directory; 'todo-server repair'
        keeps every record that verifies and moves the damaged bytes aside (see 'check --help').
        """

    public static func run(_ arguments: [String], environment: [String: String]) -> Int32 {
        if let command = arguments.first, command == "check" || command == "repair" {
            return ServerMaintenanceCommand.run(command, Array(arguments.dropFirst()))
        }
        if arguments.first == "user" { return UserCommand.run(Array(arguments.dropFirst())) }
        if arguments.first == "migrate" { return MigrateCommand.run(Array(arguments.dropFirst()), environment: environment) }
        var options: ServerOptions
        do {
            options = try ServerOptions.parse(arguments, environment: environment)
        } catch {
            printErr("error: \(error.message)\nhint: see 'todo-server --help'")
            return 2
        }
        if options.help {
            print(usage)
            return 0
        }
        if options.version {
            print("todo-server \(TodoVersion.current)")
            return 0
        }
        for warning in options.warnings { printErr(warning) }
        do { options.service.users = try UserDirectory(directory: options.dataDirectory) } catch {
            printErr("error: \(error.message)")
            return 1
        }
        let storage: any TableStore
        let service: TableService
        do {
            if let postgres = options.postgres {
                storage = try PostgresTableStore(config: postgres, limits: options.limits)
            } else {
                storage = try TableStorage(directory: options.dataDirectory, limits: options.limits,
                                           onFailure: { printErr(failureLine($0)) })
            }
            service = try TableService(configuration: options.service, store: storage)
        } catch let mismatch as TableSetup.Mismatch {
            printErr("error: \(mismatch.message)")
            return 2
        } catch let error as StorageError where options.postgres != nil {
            printErr("error: cannot use the PostgreSQL store \(options.postgres!.endpoint): \(error)\n"
                + "hint: check that the server runs, the user, the database and the password (PGPASSWORD or a password file)")
            return 1
        } catch {
            let hint = (error as? StorageError)?.kind == .corrupt ? ""
                : "\nhint: check the path and its permissions"
            printErr("error: cannot open the data directory '\(options.dataDirectory)': \(error)\(hint)")
            return 1
        }
        switch accessTablesProblem(options.service, storage) {
        case .failure(let problem):
            printErr("error: \(problem.message)")
            storage.close()
            return 2
        case .success(let warnings):
            for warning in warnings { printErr(warning) }
        }
        let log: (@Sendable (String) -> Void)? = options.quiet ? nil : { @Sendable line in printErr(line) }
        let server = HTTPServer(configuration: options.http,
                                answer: { service.answer(to: $0) },
                                errorResponse: { service.errorResponse(status: $0, message: $1) },
                                log: log)
        let port: Int
        do { port = try server.start() } catch {
            printErr("error: cannot listen on \(options.http.host):\(options.http.port): \(error)\nhint: choose another --port, or 0 for a free one")
            return 1
        }
        print("listening on http://\(options.http.host):\(port)")
        fflush(nil)
        let done = Mutex(false)
        onTerminationSignal {
            server.stop()
            storage.close()
            done.withLock { $0 = true }
        }
        while !done.withLock({ $0 }) { usleep(50_000) }
        printErr("stopped")
        return 0
    }

    /// A table the access config names that is not served is most likely a typo, which would leave
    /// the real table open to everyone the defaults let in: an error, or with `--dynamic-tables`
    /// (the table may yet be created) a warning.
    static func accessTablesProblem(_ configuration: ServiceConfiguration, _ storage: any TableStore)
        -> Result<[String], ServerOptions.Problem>
    {
        var warnings: [String] = []
        for name in (configuration.access?.tables.keys).map(Array.init)?.sorted() ?? [] {
            guard (try? storage.schema(name)) == .some(nil) else { continue }
            if configuration.dynamicTables {
                warnings.append("warning: the access config names the table '\(name)', which does not exist yet; its settings "
                    + "apply once a client creates it")
            } else {
                return .failure(ServerOptions.Problem(message: "the access config names the table '\(name)', which this server "
                    + "does not serve; fix the name, or add it to --tables"))
            }
        }
        return .success(warnings)
    }

    /// What the server logs when a table stops serving (a failed fsync): always, even `--quiet`.
    static func failureLine(_ error: StorageError) -> String { "error: \(error)" }

    static func printErr(_ text: String) {
        let line = text + "\n"
        _ = line.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    }
}
