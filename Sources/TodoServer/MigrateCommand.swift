#if canImport(Glibc)
import Glibc
#endif
import PostgresClient
import TodoBasics

/// `todo-server migrate --from DATA --to postgres://…` (issue 18 item 7): moves a team from the
/// embedded store to PostgreSQL without touching a replica (see `PostgresMigration`).
///
/// Exit status: 0 copied and counted, 1 refused or failed (nothing copied), 2 usage error.
enum MigrateCommand {
    static let usage = """
        usage: todo-server migrate --from DIR --to postgres://USER@HOST:PORT/DB

        Copies every table of the data directory DIR (the embedded store of 'todo-server --data DIR')
        into the PostgreSQL store of 'todo-server --store URL', as it is: ids, versions, createdAt and
        updatedAt, deleted rows, each table's settings and columns. Replicas synced against the
        embedded server keep working against the PostgreSQL nodes: their delta tokens and ETags stay
        valid, nothing is downloaded again.

        One transaction copies everything, then reads each table's count back and checks it against
        the data directory before it commits; the counts are printed. Nothing is copied when
        PostgreSQL already holds rows of one of the tables. The data directory is not changed (keep
        it as a backup); stop the embedded server first (migrate takes its lock). Users (users.json)
        stay in DIR: start the nodes with '--data DIR' too, or copy users.json to their --data.

          --from DIR   the data directory to copy
          --to URL     postgres://USER@HOST:PORT/DB or postgresql:///DB?host=/socket/dir; the password
                       from PGPASSWORD or a password file (passfile=PATH in the URL, PGPASSFILE,
                       ~/.pgpass), never in the URL
        """

    static func run(_ arguments: [String], environment: [String: String]) -> Int32 {
        var from: String?
        var to: String?
        var i = 0
        while i < arguments.count {
            switch arguments[i] {
            case "--help", "-h":
                print(usage)
                return 0
            case "--from", "--to":
                guard i + 1 < arguments.count else { return usageError("option '\(arguments[i])' needs a value") }
                if arguments[i] == "--from" { from = arguments[i + 1] } else { to = arguments[i + 1] }
                i += 1
            default:
                return usageError("unexpected '\(arguments[i])'")
            }
            i += 1
        }
        guard let from, let to else { return usageError("say where from and where to: --from DIR --to postgres://…") }
        let config: PostgresConfig
        do { config = try PostgresConfig.parse(to, environment: environment) } catch {
            return usageError("--to: \(error)")
        }
        guard LocalFileSystem().isDirectory(from) else {
            return failure("there is no data directory '\(from)'; give the --data folder of the embedded server")
        }
        do {
            let source = try TableStorage(directory: from)
            defer { source.close() }
            let target = try PostgresTableStore(config: config, connections: 1)
            defer { target.close() }
            let copied = try PostgresMigration(source: source, target: target).run()
            for table in copied {
                print("\(table.table): \(count(table.rows, "row")) (\(table.deleted) deleted) copied and read back")
            }
            print("copied \(count(copied.count, "table")), \(count(copied.map(\.rows).reduce(0, +), "row")), from '\(from)' "
                + "to PostgreSQL database '\(config.database)' at \(config.endpoint)")
            fflush(nil)
            return 0
        } catch {
            return failure("\(error)")
        }
    }

    private static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    private static func usageError(_ message: String) -> Int32 {
        ServerMain.printErr("error: todo-server migrate: \(message)\nhint: see 'todo-server migrate --help'")
        return 2
    }

    private static func failure(_ message: String) -> Int32 {
        fflush(nil)
        ServerMain.printErr("error: todo-server migrate: \(message)")
        return 1
    }
}
