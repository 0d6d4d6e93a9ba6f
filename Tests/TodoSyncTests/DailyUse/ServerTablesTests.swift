import Testing
import TableProtocol
import TodoModel
import TodoTestSupport

/// Issue 19 item 6: a table created on the server after the clone can be found and pulled
/// (`pull --all-tables`, through todo-server's `GET /tables`), the hint for a table the replica
/// lacks names the pull, `status` names the listed tables not tracked, and a server that cannot
/// list its tables gets one clear sentence.
@Suite struct ServerTablesTests {
    /// A replica cloned before the table `notes` was made on the server by another client.
    static func cloneThenNewTable() throws -> (SyncWorld, CLIHarness) {
        let world = try SyncWorld()
        world.raw("POST", "/tables/todoitem", body: ["id": "x", "text": "a", "complete": false])
        let a = world.replica("A")
        a.expect(0, "pull")
        world.raw("POST", "/tables/notes", body: ["id": "n1", "text": "note", "complete": false])
        return (world, a)
    }

    @Test func theServerListsItsTablesAndAnAllTablesPullBringsTheNewOne() throws {
        let (world, a) = try Self.cloneThenNewTable()
        let missing = a.expect(1, "list", "--table", "notes")
        #expect(missing.err == """
            error: no table 'notes' in this replica
            hint: tables here: todoitem; if the server has it, 'todo pull --table notes' brings it ('todo pull --all-tables' brings every table the server has); 'todo add --table notes' creates it

            """, "\(missing)")
        a.expect(0, "pull")
        #expect(a.item("n1", table: "notes") == nil, "a plain pull keeps to the tracked tables")

        let listing = world.raw("GET", "/tables")
        #expect(listing.status == 200)
        #expect(listing.json == [["name": "notes", "softDelete": true], ["name": "todoitem", "softDelete": true]])
        #expect(world.raw("GET", "/tables/").status == 200, "one trailing slash is ignored")
        #expect(world.raw("POST", "/tables", body: ["id": "y"]).status == 405)

        let all = a.expect(0, "pull", "--all-tables")
        #expect(all.err == "", "\(all)")
        #expect(a.item("n1", table: "notes")?["text"] == "note")
        #expect(!a.expect(0, "status").out.contains("not tracked"))
        a.expect(0, "table", "rm", "notes")
        let status = a.expect(0, "status")
        #expect(status.out.contains("""

            On the server, not tracked here: notes (listed at 
            """), "\(status)")
        #expect(status.out.contains("  (use \"todo pull --all-tables\" to pull them, \"todo pull --table notes\" for one)\n"), "\(status)")
        a.expect(0, "doctor")
    }

    /// Servers other than todo-server have no `GET /tables` (protocol §3.1.1: every other path is a 404).
    @Test func aServerThatCannotListTablesGetsOneSentenceAndTheTrackedTablesArePulled() throws {
        let (world, a) = try Self.cloneThenNewTable()
        world.script { request, service in
            if request.target.hasPrefix("/tables?") || request.target == "/tables" {
                return HTTPResponse(status: 404, headers: ["Content-Type": "text/html"], body: Array("<html>Not Found</html>".utf8))
            }
            return service(request)
        }
        world.raw("POST", "/tables/todoitem", body: ["id": "y", "text": "b", "complete": false])
        let r = a.expect(0, "pull", "--all-tables")
        #expect(r.err == "warning: \(world.url) cannot list its tables (GET /tables answered 404): it is not a todo-server, or an older one; name each table you want: 'todo pull --table NAME'\n", "\(r)")
        #expect(a.item("y") != nil, "the tracked tables are pulled")
        #expect(a.item("n1", table: "notes") == nil)
        a.expect(2, "pull", "--all-tables", "--table", "notes")
    }
}
