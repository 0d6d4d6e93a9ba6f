import Testing
import TableProtocol
import TodoBasics
import TodoModel
import TodoTestSupport
@testable import TodoServer

/// Issue 19 item 6: `GET /tables`, todo-server's own route (not in the protocol), lists the
/// tables a caller may read, on both backends, with the protocol's checks.
@Suite struct TableListingTests {
    @Test(arguments: Backend.allCases) func theTablesAreListedByName(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend) { config in config.tables = ["todoitem", "Notes"] }
        let r = try h.send("GET", "/tables")
        #expect(r.status == 200, "\(r)")
        #expect(r.json == [["name": "Notes", "softDelete": true], ["name": "todoitem", "softDelete": true]], "\(r)")
        #expect(r.headers["Content-Type"] == "application/json; charset=utf-8")
        let post = try h.send("POST", "/tables", body: #"{"id":"a"}"#)
        #expect(post.status == 405 && post.headers["Allow"] == "GET, OPTIONS", "\(post)")
        #expect(try h.send("GET", "/tables", g2: false).status == 200, "a G1 request lists them too")
        #expect(try h.send("GET", "/tables", g2: false, headers: [("ZUMO-API-VERSION", "9.0.0")]).status == 400)
        #expect(try h.send("GET", "/tables/todoitem").status == 200, "the tables are served as before")
    }

    /// A caller learns only of the tables it could read.
    @Test func aCallerSeesOnlyTheTablesItMayRead() throws {
        let w = try AccessServerTests.World(#"{"tables": {"todoitem": {"read": "application"}, "secret": {"read": "user", "insert": "user", "update": "user", "delete": "user", "undelete": "user"}}}"#,
                                            tables: ["todoitem", "secret"])
        let app = try w.send("GET", "/tables", AccessServerTests.World.app)
        #expect(app.json == [["name": "todoitem", "softDelete": true]], "\(app)")
        let alice = try w.send("GET", "/tables", w.asAlice)
        #expect(alice.array.count == 2, "\(alice)")
        #expect(try w.send("GET", "/tables", [("X-ZUMO-APPLICATION", "wrong")]).status == 401)
    }
}
