import Testing
import TableProtocol
import TodoBasics
import TodoModel
import TodoTestSupport
@testable import TodoServer

/// Issue 17 item 7 end to end: replicas of two users, each with their own token, push to and pull
/// from an owner table, and each sees only their own rows; the token goes with every request, also
/// through the https helper; a refused token stops a push with one clear sentence.
@Suite struct OwnerTableSyncTests {
    final class Users {
        let directory = TempDirectory("todo-sync-users")
        let world: SyncWorld
        var tokens: [String: String] = [:]

        init(wire: SyncWorld.Wire = .inProcess) throws {
            for name in ["alice", "bob"] {
                tokens[name] = try UserCommand.perform("add", name: name, directory: directory.path).stdout[0]
            }
            let users = try UserDirectory(directory: directory.path)
            let access = try AccessConfig.parse(Array(#"{"tables": {"todoitem": {"owner": true}}}"#.utf8),
                                                hasAppKey: false, hasMasterKey: true)
            world = try SyncWorld(wire: wire) { config in
                config.users = users
                config.masterKey = "master"
                config.access = access
            }
        }

        deinit { directory.remove() }

        /// A replica that sends `user`'s token from `.todo/auth-token`.
        func replica(_ name: String, as user: String, environment: [String: String] = [:]) throws -> CLIHarness {
            let file = world.directory.sub("\(name).token")
            try LocalFileSystem().writeFile(file, Array((tokens[user]! + "\n").utf8), sync: false)
            return world.replica(name, extraInit: ["--token-file", file], environment: environment)
        }

        /// The ids of every row, as admin sees them.
        func allRows() -> [String: String] {
            let rows = world.raw("GET", "/tables/todoitem?__includeDeleted=true", headers: [("X-ZUMO-MASTER", "master")]).json?.arrayValue ?? []
            var owners: [String: String] = [:]
            for row in rows { owners[row["id"]?.stringValue ?? ""] = row["userId"]?.stringValue ?? "" }
            return owners
        }
    }

    static func ids(_ replica: CLIHarness) -> [String] {
        let listed = replica.expect(0, "list", "--all", "--json")
        return ((try? JSONValue.parse(listed.out))?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }.sorted()
    }

    @Test func twoUsersEachSeeOnlyTheirOwnRows() throws {
        let users = try Users()
        let world = users.world
        let a = try users.replica("A", as: "alice"), b = try users.replica("B", as: "bob")
        a.expect(0, "add", "milk", "--id", "a1")
        a.expect(0, "push")
        b.expect(0, "add", "bread", "--id", "b1")
        b.expect(0, "add", "eggs", "--id", "b2")
        b.expect(0, "push")
        #expect(users.allRows() == ["a1": "alice", "b1": "bob", "b2": "bob"])
        #expect(world.requests().allSatisfy { $0.headers["X-ZUMO-AUTH"] == users.tokens["alice"] || $0.headers["X-ZUMO-AUTH"] == users.tokens["bob"] },
                "every request carries its replica's token")

        a.expect(0, "pull")
        b.expect(0, "pull")
        #expect(Self.ids(a) == ["a1"])
        #expect(Self.ids(b) == ["b1", "b2"])
        #expect(a.item("a1")?["userId"] == "alice", "the owner the server set comes back with the row")

        // Edits and deletes go back with the row's own userId, which the server accepts.
        a.expect(0, "edit", "a1", "--text", "oat milk")
        a.expect(0, "push")
        b.expect(0, "done", "b1")
        b.expect(0, "rm", "b2")
        b.expect(0, "push")
        a.expect(0, "pull")
        b.expect(0, "pull")
        #expect(Self.ids(a) == ["a1"] && a.item("a1")?["text"] == "oat milk")
        #expect(Self.ids(b) == ["b1"] && b.item("b1")?["complete"] == true)
        #expect(a.operations.isEmpty && b.operations.isEmpty && a.conflicts.isEmpty && b.conflicts.isEmpty)

        // A second replica of Alice's, cloned, holds her rows and no one else's.
        let file = world.directory.sub("alice.token")
        try LocalFileSystem().writeFile(file, Array((users.tokens["alice"]! + "\n").utf8), sync: false)
        let clone = world.harness(world.directory.path, environment: ["TODO_RETRY_WAIT_SCALE": "0"])
        clone.expect(0, "clone", world.url, "A2", "--token-file", file)
        let a2 = CLIHarness(directory: world.directory.sub("A2"))
        #expect(Self.ids(a2) == ["a1"])

        // Another token is another user: the next pull starts from the beginning, so Bob's rows,
        // all older than the newest row A has pulled, arrive.
        a.expect(0, "add", "newest", "--id", "a3")
        a.expect(0, "push")
        a.expect(0, "pull")
        let bobFile = world.directory.sub("bob.token")
        try LocalFileSystem().writeFile(bobFile, Array((users.tokens["bob"]! + "\n").utf8), sync: false)
        a.expect(0, "remote", "set", "--token-file", bobFile)
        a.expect(0, "pull")
        #expect(Self.ids(a).contains("b1"))
    }

    @Test func theTokenGoesThroughTheHTTPSHelperToo() throws {
        #expect(LocalFileSystem().fileExists(HelperBinary.path), "build todo-remote-https first (swift build)")
        let users = try Users(wire: .socket)  // the helper process connects by itself
        let helper = ["TODO_REMOTE_HELPER_FOR_HTTP": "1", "TODO_REMOTE_HELPER": HelperBinary.path]
        let a = try users.replica("A", as: "alice", environment: helper)
        a.expect(0, "add", "via the helper", "--id", "h1")
        a.expect(0, "push")
        a.expect(0, "pull")
        #expect(users.allRows() == ["h1": "alice"])
        #expect(users.world.requests().allSatisfy { $0.headers["X-ZUMO-AUTH"] == users.tokens["alice"] })
    }

    @Test func aRefusedTokenStopsThePushWithOneClearSentence() throws {
        let users = try Users()
        let a = try users.replica("A", as: "alice")
        a.expect(0, "add", "x", "--id", "x1")
        _ = try UserCommand.perform("rm", name: "alice", directory: users.directory.path)
        let push = a.expect(4, "push")
        #expect(push.err.contains("error: the server refused the token/key (401): Unauthorized: the token (X-ZUMO-AUTH) is not "
            + "one this server issued, or it was revoked; ask the server's operator for a new one (todo-server user token NAME); "
            + "check 'todo remote set --token-file FILE' (a user's token) or '--app-key-file FILE' (the app key)\n"), "\(push)")
        #expect(a.operations.count == 1, "nothing was lost")

        let b = users.world.replica("B")
        let pull = b.expect(4, "pull")
        #expect(pull.err.contains("error: the server refused the token/key (401): Unauthorized: reading the table 'todoitem' "
            + "needs a user's token (X-ZUMO-AUTH); check 'todo remote set --token-file FILE'"), "\(pull)")
    }
}
