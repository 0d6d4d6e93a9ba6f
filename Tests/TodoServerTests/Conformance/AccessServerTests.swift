import Testing
import TableProtocol
import TodoBasics
import TodoModel
import TodoTestSupport
@testable import TodoServer

/// Issue 17 item 7 on the real handler and socket: permissions per operation, tokens, the master
/// key, and owner mode (each user sees only their own rows; admin sees all).
@Suite struct AccessServerTests {
    /// A server with users alice and bob, app key `app`, master key `master`, and `access`.
    final class World {
        let users = TempDirectory("todo-users")
        let h: TableServerHarness
        let alice: String
        let bob: String

        init(_ access: String, tables: [String] = ["todoitem"]) throws {
            alice = try UserCommand.perform("add", name: "alice", directory: users.path).stdout[0]
            bob = try UserCommand.perform("add", name: "bob", directory: users.path).stdout[0]
            let directory = try UserDirectory(directory: users.path)
            let policy = try AccessConfig.parse(Array(access.utf8), hasAppKey: true, hasMasterKey: true)
            h = try TableServerHarness { config in
                config.tables = tables
                config.appKey = "app"
                config.masterKey = "master"
                config.access = policy
                config.users = directory
            }
        }

        deinit { users.remove() }

        static let app = [("X-ZUMO-APPLICATION", "app")]
        static let master = [("X-ZUMO-MASTER", "master")]
        var asAlice: [(String, String)] { [("X-ZUMO-AUTH", alice)] }
        var asBob: [(String, String)] { [("X-ZUMO-AUTH", bob)] }

        @discardableResult
        func send(_ method: String, _ target: String, _ headers: [(String, String)], body: String? = nil,
                  g2: Bool = true) throws -> TableServerHarness.Reply {
            try h.send(method, target, g2: g2, headers: headers, body: body)
        }
    }

    static let owned = #"{"tables": {"todoitem": {"read": "user", "insert": "user", "update": "user", "undelete": "user", "delete": "admin", "owner": true}}}"#

    @Test func eachOperationNeedsItsLevel() throws {
        let w = try World(#"{"tables": {"todoitem": {"read": "public", "insert": "application", "update": "user", "delete": "admin", "undelete": "admin"}}}"#)
        let none: [(String, String)] = []
        #expect(try w.send("GET", "/tables/todoitem", none).status == 200, "read: public")
        #expect(try w.send("GET", "/tables/todoitem/x", none).status == 404, "a read by id too: public, then the row is missing")
        let refused = try w.send("POST", "/tables/todoitem", none, body: #"{"id":"a"}"#)
        #expect(refused.status == 401)
        #expect(refused.object["error"] == "Unauthorized: inserting into the table 'todoitem' needs the app key (X-ZUMO-APPLICATION).")
        #expect(try w.send("POST", "/tables/todoitem", World.app, body: #"{"id":"a","text":"t"}"#).status == 201)
        let update = try w.send("PATCH", "/tables/todoitem/a", World.app, body: #"{"text":"u"}"#)
        #expect(update.status == 401 && update.object["error"] == "Unauthorized: updating the table 'todoitem' needs a user's token (X-ZUMO-AUTH).")
        #expect(try w.send("PATCH", "/tables/todoitem/a", w.asAlice, body: #"{"text":"u"}"#).status == 200)
        let delete = try w.send("DELETE", "/tables/todoitem/a", w.asAlice)
        #expect(delete.status == 401 && delete.object["error"] == "Unauthorized: deleting from the table 'todoitem' needs the master key (X-ZUMO-MASTER).")
        #expect(try w.send("DELETE", "/tables/todoitem/a", World.master).status == 200)
        #expect(try w.send("POST", "/tables/todoitem/a", w.asAlice).status == 401, "undelete: admin")
        #expect(try w.send("POST", "/tables/todoitem/a", World.master).status == 201)
        #expect(try w.send("GET", "/tables/todoitem/a", none).object["text"] == "u")
    }

    @Test func wrongCredentialsAre401EvenWherePublicAndInG1Form() throws {
        let w = try World(#"{"default": {"read": "public"}}"#)
        #expect(try w.send("GET", "/tables/todoitem", []).status == 200)
        let token = try w.send("GET", "/tables/todoitem", [("X-ZUMO-AUTH", "not-a-token")])
        #expect(token.status == 401)
        #expect(token.object["error"]?.stringValue == "Unauthorized: the token (X-ZUMO-AUTH) is not one this server issued, or it was revoked; "
            + "ask the server's operator for a new one (todo-server user token NAME).")
        #expect(try w.send("GET", "/tables/todoitem", [("X-ZUMO-MASTER", "nope")]).status == 401)
        #expect(try w.send("GET", "/tables/todoitem", [("X-ZUMO-APPLICATION", "nope")]).status == 401)
        let g1 = try w.send("POST", "/tables/todoitem", [], body: #"{"id":"a"}"#, g2: false)
        #expect(g1.status == 401 && g1.object["code"] == 401)
        #expect(g1.object["error"] == "Error: Unauthorized: inserting into the table 'todoitem' needs the app key (X-ZUMO-APPLICATION).")
        // The lower-case header name works like any header name.
        #expect(try w.send("POST", "/tables/todoitem", [("x-zumo-auth", w.alice)], body: #"{"id":"a"}"#).status == 201)
    }

    @Test func aCallerWithoutAccessLearnsNothingOfWhichTablesExist() throws {
        let w = try World("{}")
        let unknown = try w.send("GET", "/tables/no_such_table", [])
        let known = try w.send("GET", "/tables/todoitem", [])
        #expect(unknown.status == 401 && known.status == 401)
        #expect(try w.send("PUT", "/tables/no_such_table/x", []).status == 401, "a method no operation has: the lowest level")
        #expect(try w.send("PUT", "/tables/todoitem/x", World.app).status == 405)
        #expect(try w.send("GET", "/tables/no_such_table", World.app).status == 404)
        #expect(try w.send("OPTIONS", "/tables/todoitem", [], g2: false).status == 200, "OPTIONS needs nothing (§3.7)")
    }

    @Test func ownerModeKeepsEachUsersRowsApart() throws {
        let w = try World(Self.owned)
        let inserted = try w.send("POST", "/tables/todoitem", w.asAlice, body: #"{"id":"a1","text":"alice's"}"#)
        #expect(inserted.status == 201 && inserted.object["userId"] == "alice", "the server sets userId")
        #expect(try w.send("POST", "/tables/todoitem", w.asBob, body: #"{"id":"b1","text":"bob's"}"#).status == 201)

        // Bob cannot read, query, count, update, delete or undelete Alice's row: it is not there for him.
        #expect(try w.send("GET", "/tables/todoitem/a1", w.asBob).status == 404)
        #expect(try w.send("GET", "/tables/todoitem/a1?__includeDeleted=true", w.asBob).status == 404)
        #expect(try w.send("GET", "/tables/todoitem", w.asBob).array.ids == ["b1"])
        #expect(try w.send("GET", "/tables/todoitem?$filter=userId%20eq%20'alice'", w.asBob).array.isEmpty)
        #expect(try w.send("GET", "/tables/todoitem?$filter=id%20eq%20'a1'&__includeDeleted=true", w.asBob).array.isEmpty,
                "the client's one-row query finds nothing either")
        #expect(try w.send("GET", "/tables/todoitem?$orderby=text&$inlinecount=allpages", w.asBob).object["count"] == 1)
        #expect(try w.send("GET", "/tables/todoitem?$filter=(updatedAt%20ge%20datetimeoffset'1970-01-01T00:00:00.000Z')&$orderby=updatedAt&__includeDeleted=true",
                           w.asBob).array.ids == ["b1"], "an incremental pull's page")
        let patch = try w.send("PATCH", "/tables/todoitem/a1", w.asBob, body: #"{"text":"mine now"}"#)
        #expect(patch.status == 404 && patch.object["error"] == "The item 'a1' does not exist.")
        #expect(try w.send("PATCH", "/tables/todoitem/a1", w.asBob + [("If-Match", "*")], body: #"{"text":"x"}"#).status == 404)
        #expect(try w.send("DELETE", "/tables/todoitem/a1", w.asBob).status == 401,
                "delete is admin's here")
        #expect(try w.send("POST", "/tables/todoitem/a1", w.asBob).status == 404, "undelete")

        // Alice's row is as she left it; she sees only hers.
        let mine = try w.send("GET", "/tables/todoitem/a1", w.asAlice)
        #expect(mine.status == 200 && mine.object["text"] == "alice's")
        #expect(try w.send("GET", "/tables/todoitem", w.asAlice).array.ids == ["a1"])
        #expect(try w.send("PATCH", "/tables/todoitem/a1", w.asAlice, body: #"{"text":"edited","userId":"alice"}"#).status == 200,
                "sending back her own userId is fine")

        // Admin sees and changes every row.
        #expect(try w.send("GET", "/tables/todoitem", World.master).array.ids == ["a1", "b1"])
        #expect(try w.send("DELETE", "/tables/todoitem/b1", World.master).status == 200)
        #expect(try w.send("GET", "/tables/todoitem?__includeDeleted=true", w.asBob).array.first?["deleted"] == true)
        #expect(try w.send("POST", "/tables/todoitem/b1", w.asBob).status == 201, "bob undeletes his own row")
    }

    @Test func anotherUsersIdIsTakenButNothingOfItsRowShows() throws {
        let w = try World(Self.owned)
        try w.send("POST", "/tables/todoitem", w.asAlice, body: #"{"id":"same","text":"secret"}"#)
        let clash = try w.send("POST", "/tables/todoitem", w.asBob, body: #"{"id":"SAME","text":"x"}"#)
        #expect(clash.status == 409)
        #expect(clash.object == ["error": "The id 'SAME' is already used in the table 'todoitem'; choose another id."])
        #expect(clash.headers["ETag"] == nil && !clash.text.contains("secret") && !clash.text.contains("alice"))
        // Her own duplicate still answers with her row (protocol §5.3).
        let own = try w.send("POST", "/tables/todoitem", w.asAlice, body: #"{"id":"same"}"#)
        #expect(own.status == 409 && own.object["text"] == "secret")
    }

    @Test func usersCannotSetOrChangeTheOwner() throws {
        let w = try World(Self.owned)
        let forged = try w.send("POST", "/tables/todoitem", w.asBob, body: #"{"id":"f","userId":"alice"}"#)
        #expect(forged.status == 400)
        #expect(forged.object["error"]?.stringValue == "The property 'userId' of the table 'todoitem' holds the row's owner, which the server "
            + "sets to the user of the token: leave it out (or send \"bob\").")
        try w.send("POST", "/tables/todoitem", w.asBob, body: #"{"id":"b"}"#)
        #expect(try w.send("PATCH", "/tables/todoitem/b", w.asBob, body: #"{"userId":"alice"}"#).status == 400)
        #expect(try w.send("PATCH", "/tables/todoitem/b", w.asBob, body: #"{"userId":null}"#).status == 400)
        let variant = try w.send("POST", "/tables/todoitem", w.asBob, body: #"{"id":"v","UserID":"x"}"#)
        #expect(variant.status == 400 && variant.object["error"]?.stringValue == "The property 'UserID' is not allowed in the table 'todoitem': "
            + "it keeps each row's owner in 'userId', which the server sets.")
        #expect(try w.send("GET", "/tables/todoitem/b", w.asBob).object["userId"] == "bob", "nothing changed")
        // Admin may give a row to someone.
        #expect(try w.send("POST", "/tables/todoitem", World.master, body: #"{"id":"given","userId":"alice"}"#).status == 201)
        #expect(try w.send("GET", "/tables/todoitem/given", w.asAlice).status == 200)
    }

    @Test func aTableWithoutOwnerModeIsSharedByItsUsers() throws {
        let w = try World(#"{"tables": {"todoitem": {"read": "user", "insert": "user", "update": "user"}}}"#)
        try w.send("POST", "/tables/todoitem", w.asAlice, body: #"{"id":"a","userId":"anyone"}"#)
        #expect(try w.send("GET", "/tables/todoitem/a", w.asBob).object["userId"] == "anyone", "userId is a plain column here")
        #expect(try w.send("PATCH", "/tables/todoitem/a", w.asBob, body: #"{"text":"bob"}"#).status == 200)
    }

    @Test func withoutAnAccessConfigTheAppKeyOpensEverythingAsBefore() throws {
        let h = try TableServerHarness { $0.appKey = "k" }
        #expect(try h.send("GET", "/tables/todoitem").status == 401)
        #expect(try h.send("POST", "/tables/todoitem", headers: [("X-ZUMO-APPLICATION", "k")], body: #"{"id":"a"}"#).status == 201)
        #expect(try h.send("DELETE", "/tables/todoitem/a", headers: [("X-ZUMO-APPLICATION", "k")]).status == 200)
        let open = try TableServerHarness()
        #expect(try open.send("POST", "/tables/todoitem", body: #"{"id":"a"}"#).status == 201)
        #expect(try open.send("DELETE", "/tables/todoitem/a", headers: [("X-ZUMO-APPLICATION", "anything")]).status == 200)
        #expect(try open.send("GET", "/tables/todoitem", headers: [("X-ZUMO-AUTH", "x")]).status == 401,
                "a token this server did not issue is refused: it has no users")
    }

    @Test func aRevokedTokenStopsWorkingAtTheNextRequest() throws {
        let w = try World(Self.owned)
        #expect(try w.send("GET", "/tables/todoitem", w.asAlice).status == 200)
        _ = try UserCommand.perform("rm", name: "alice", directory: w.users.path)
        #expect(try w.send("GET", "/tables/todoitem", w.asAlice).status == 401)
        let carol = try UserCommand.perform("add", name: "carol", directory: w.users.path).stdout[0]
        #expect(try w.send("GET", "/tables/todoitem", [("X-ZUMO-AUTH", carol)]).status == 200, "a new user without a restart")
    }
}
