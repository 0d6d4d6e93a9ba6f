#if canImport(Glibc)
import Glibc
#endif
import Testing
import TableProtocol
import TodoBasics
import TodoModel
import TodoTestSupport
@testable import TodoServer

/// Issue 17 item 7 with the built `todo-server`: `user add` prints a token once and keeps only its
/// digest; the server, started with an access config, serves that user their own rows, and stops
/// taking the token as soon as `user rm` has run, without a restart.
@Suite(.serialized) struct UserCommandProcessTests {
    static func run(_ arguments: [String], _ dir: StorageTestDirectory) throws -> ServerMaintenanceCommandTests.Run {
        try ServerMaintenanceCommandTests.run(arguments, dir)
    }

    static func mode(_ path: String) -> UInt32? {
        var st = stat()
        return stat(path, &st) == 0 ? UInt32(st.st_mode) & 0o777 : nil
    }

    @Test func userAddPrintsATokenOnceAndTheServerTakesItUntilUserRm() throws {
        #expect(LocalFileSystem().fileExists(ServerProcessTests.binary), "build todo-server first (swift build)")
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let add = try Self.run(["user", "add", "alice", "--data", dir.data], dir)
        #expect(add.status == 0, "\(add)")
        let token = String(add.out.dropLast())
        #expect(add.out.hasSuffix("\n") && token.count == 64 && UserToken.bytes(hex: token) != nil, "stdout is the token alone: \(add.out)")
        #expect(add.err == "added the user 'alice'; the token printed on stdout is shown this once (only its digest is kept): "
            + "give it to them for 'todo remote set --token-file FILE'\n")
        let users = dir.data + "/users.json"
        #expect(Self.mode(users) == 0o600)
        #expect(!String(decoding: StorageTestDirectory.read(users), as: UTF8.self).contains(token))
        let again = try Self.run(["user", "add", "alice", "--data", dir.data], dir)
        #expect(again.status == 1 && again.out.isEmpty)
        #expect(again.err == "error: todo-server user add: the user 'alice' exists; 'todo-server user token alice' issues a new token\n")
        let bad = try Self.run(["user", "add", "--data", dir.data], dir)
        #expect(bad.status == 2 && bad.err == "error: todo-server user: 'user add' takes one NAME\nhint: see 'todo-server user --help'\n")
        let bob = String(try Self.run(["user", "add", "bob", "--data", dir.data], dir).out.dropLast())

        let access = dir.path + "/access.json"
        StorageTestDirectory.write(access, Array(#"{"tables": {"todoitem": {"owner": true}}}"#.utf8))
        let server = TempDirectory("todo-server-users")
        defer { server.remove() }
        let (pid, port) = try ServerProcessTests.start(dir.data, server, ["--access-config", access])
        defer { kill(pid, SIGTERM); var s: Int32 = 0; waitpid(pid, &s, 0) }
        func send(_ method: String, _ target: String, _ token: String?, _ body: String = "") throws -> HTTPResponse {
            let client = try RawHTTPClient(port: port)
            defer { client.close() }
            let auth = token.map { "X-ZUMO-AUTH: \($0)\r\n" } ?? ""
            try client.send("\(method) \(target) HTTP/1.1\r\nHost: x\r\nZUMO-API-VERSION: 2.0.0\r\n\(auth)"
                            + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
            return try client.readResponse(method: method)
        }
        #expect(try send("GET", "/tables/todoitem", nil).status == 401)
        #expect(try send("POST", "/tables/todoitem", token, #"{"id":"a","text":"alice's"}"#).status == 201)
        #expect(try send("POST", "/tables/todoitem", bob, #"{"id":"b","text":"bob's"}"#).status == 201)
        let rows = (try? JSONValue.parse(try send("GET", "/tables/todoitem", token).body))?.arrayValue ?? []
        #expect(rows.compactMap { $0["id"]?.stringValue } == ["a"] && rows.first?["userId"] == "alice")

        let removed = try Self.run(["user", "rm", "alice", "--data", dir.data], dir)
        #expect(removed.status == 0 && removed.out == "removed the user 'alice'; their token no longer works\n", "\(removed)")
        #expect(try send("GET", "/tables/todoitem", token).status == 401, "no restart needed")
        #expect(try send("GET", "/tables/todoitem/b", bob).status == 200)
    }

    @Test func anAccessConfigNamingATableNotServedStopsTheStart() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let access = dir.path + "/access.json"
        StorageTestDirectory.write(access, Array(#"{"tables": {"todoitems": {"owner": true}}}"#.utf8))
        let start = try Self.run(["--data", dir.data, "--port", "0", "--quiet", "--access-config", access], dir)
        #expect(start.status == 2 && start.out.isEmpty)
        #expect(start.err == "error: the access config names the table 'todoitems', which this server does not serve; fix "
            + "the name, or add it to --tables\n")
        let damaged = dir.path + "/bad.json"
        StorageTestDirectory.write(damaged, Array(#"{"tables": {"todoitem": {"read": "everyone"}}}"#.utf8))
        let bad = try Self.run(["--data", dir.data, "--port", "0", "--access-config", damaged], dir)
        #expect(bad.status == 2)
        #expect(bad.err == "error: the access config '\(damaged)': 'tables.todoitem.read' must be one of public, application, "
            + "user, admin, not \"everyone\"\nhint: see 'todo-server --help'\n")
    }
}
