#if canImport(Glibc)
import Glibc
#endif

/// `todo-server check` and `todo-server repair`: the operator's tools for a damaged data directory.
///
/// Exit status: 0 when the server can start on the directory (after repair: now), 1 when it
/// cannot or the command failed, 2 for a usage error.
enum ServerMaintenanceCommand {
    static let usage = """
        usage: todo-server check [--data DIR]
               todo-server repair [--data DIR]

        check   reads every table log in the data directory and reports each damaged record and torn
                tail with its file and byte offset; changes nothing.
        repair  keeps every record that verifies, moves damaged records and torn tails byte for byte
                to '<table>.log.damaged.<n>' beside the log, and says what it did. Versions resume
                above every version the removed bytes mention.

        Both need the server stopped (they take the data directory's lock).
          --data DIR   data directory (default: ./todo-server-data)
        """

    static func run(_ command: String, _ arguments: [String]) -> Int32 {
        var directory = ServerOptions().dataDirectory
        var i = 0
        while i < arguments.count {
            switch arguments[i] {
            case "--help", "-h":
                print(usage)
                return 0
            case "--data" where i + 1 < arguments.count:
                directory = arguments[i + 1]
                i += 1
            default:
                ServerMain.printErr("error: todo-server \(command): unexpected '\(arguments[i])'\nhint: see 'todo-server \(command) --help'")
                return 2
            }
            i += 1
        }
        do {
            let outcome = command == "check"
                ? try DataDirectoryMaintenance.check(directory: directory)
                : try DataDirectoryMaintenance.repair(directory: directory)
            for line in outcome.lines { print(line) }
            fflush(nil)
            return outcome.serverCanStart ? 0 : 1
        } catch {
            fflush(nil)
            ServerMain.printErr("error: todo-server \(command): \(error)")
            return 1
        }
    }
}
