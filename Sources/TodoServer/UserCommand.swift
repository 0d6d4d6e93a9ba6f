#if canImport(Glibc)
import Glibc
#endif
import TodoBasics

/// `todo-server user add|token|rm|list`: the users whose tokens `X-ZUMO-AUTH` carries (issue 17
/// item 7). Works while the server runs: it does not take the data directory's lock, only
/// `users.lock`, which keeps two of these commands from losing each other's change; the server
/// reads the new file at its next token request (`UserDirectory`).
///
/// Exit status: 0 done, 1 refused or failed, 2 usage error.
enum UserCommand {
    static let usage = """
        usage: todo-server user add NAME [--data DIR]
               todo-server user token NAME [--data DIR]
               todo-server user rm NAME [--data DIR]
               todo-server user list [--data DIR]

        add    adds a user and prints their token on stdout, once: only its SHA-256 digest is kept,
               in DIR/users.json (mode 0600). Give the token to the user; 'todo' sends it with
               'todo remote set --token-file FILE'.
        token  issues a new token for a user; the old one stops working.
        rm     removes a user; their token stops working. Their rows in owner tables stay (the
               master key sees them; a user added again under the same name owns them again).
        list   the users, and when each token was issued.

        A running server sees the change at its next request; no restart is needed.
          --data DIR   data directory (default: ./todo-server-data); created if missing
        """

    static func run(_ arguments: [String]) -> Int32 {
        var directory = ServerOptions().dataDirectory
        var words: [String] = []
        var i = 0
        while i < arguments.count {
            switch arguments[i] {
            case "--help", "-h":
                print(usage)
                return 0
            case "--data":
                guard i + 1 < arguments.count else { return usageError("option '--data' needs a value") }
                directory = arguments[i + 1]
                i += 1
            case let word where word.hasPrefix("-"):
                return usageError("unknown option '\(word)'")
            case let word:
                words.append(word)
            }
            i += 1
        }
        guard let action = words.first else { return usageError("say what to do: add, token, rm or list") }
        let takesName = ["add", "token", "rm"].contains(action)
        guard takesName || action == "list" else { return usageError("unknown action '\(action)'; use add, token, rm or list") }
        if takesName && words.count != 2 { return usageError("'user \(action)' takes one NAME") }
        if !takesName && words.count != 1 { return usageError("'user list' takes no NAME") }
        do {
            let output = try perform(action, name: takesName ? words[1] : nil, directory: directory)
            for line in output.stdout { print(line) }
            fflush(nil)
            for line in output.stderr { ServerMain.printErr(line) }
            return 0
        } catch {
            ServerMain.printErr("error: todo-server user \(action): \(error.message)")
            return 1
        }
    }

    struct Problem: Error { var message: String }

    struct Output {
        var stdout: [String] = []
        var stderr: [String] = []
    }

    static func perform(_ action: String, name: String?, directory: String) throws(Problem) -> Output {
        if let name, let problem = UsersFile.nameProblem(name) { throw Problem(message: problem) }
        if action == "list" {
            let file = try read(directory)
            guard !file.users.isEmpty else { return Output(stdout: ["no users (add one with 'todo-server user add NAME')"]) }
            let width = file.users.map(\.name.count).max() ?? 0
            return Output(stdout: file.users.map { user in
                user.name + String(repeating: " ", count: width - user.name.count) + "  token issued \(user.tokenIssuedAt)"
            })
        }
        let name = name!
        do { try LocalFileSystem().createDirectory(directory) } catch {
            throw Problem(message: "cannot create the data directory '\(directory)': \(error.reason)")
        }
        let lock: StoreLock
        do { lock = try StoreLock.acquire(at: directory.appendingPath("users.lock"), command: "todo-server user \(action)") } catch {
            throw Problem(message: "the users file is being changed by another command (\(error)); try again")
        }
        defer { lock.release() }
        var file = try read(directory)
        let existing = file.index(of: name)
        var output = Output()
        switch action {
        case "add":
            if let existing {
                throw Problem(message: "the user '\(file.users[existing].name)' exists; 'todo-server user token "
                    + "\(file.users[existing].name)' issues a new token")
            }
            let token = try newToken()
            file.users.append(UsersFile.User(name: name, tokenDigest: UserToken.digest(token), tokenIssuedAt: Clock.live.nowText()))
            output.stdout = [token]
            output.stderr = ["added the user '\(name)'; the token printed on stdout is shown this once (only its digest is kept): "
                + "give it to them for 'todo remote set --token-file FILE'"]
        case "token":
            guard let existing else { throw unknown(name) }
            let token = try newToken()
            file.users[existing].tokenDigest = UserToken.digest(token)
            file.users[existing].tokenIssuedAt = Clock.live.nowText()
            output.stdout = [token]
            output.stderr = ["issued a new token for '\(file.users[existing].name)' (printed on stdout, shown this once); the old one "
                + "no longer works"]
        default:
            guard let existing else { throw unknown(name) }
            output.stdout = ["removed the user '\(file.users[existing].name)'; their token no longer works"]
            file.users.remove(at: existing)
        }
        do { try file.write(directory: directory) } catch {
            throw Problem(message: "cannot write the users file: \(error)")
        }
        return output
    }

    private static func read(_ directory: String) throws(Problem) -> UsersFile {
        do { return try UsersFile.read(directory: directory) } catch { throw Problem(message: error.message) }
    }

    private static func newToken() throws(Problem) -> String {
        do { return try UserToken.make() } catch { throw Problem(message: "\(error)") }
    }

    private static func unknown(_ name: String) -> Problem {
        Problem(message: "there is no user '\(name)' (see 'todo-server user list')")
    }

    private static func usageError(_ message: String) -> Int32 {
        ServerMain.printErr("error: todo-server user: \(message)\nhint: see 'todo-server user --help'")
        return 2
    }
}
