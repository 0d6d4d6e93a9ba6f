import Testing
import TableProtocol
import TodoBasics
import TodoModel
import TodoTestSupport

/// `todo remote set` and `todo clone` (sync.md §5.2): a token is a position on one server, so a
/// new URL drops every token and the skip mode; clone is init + pull.
@Suite struct PullRemoteTests {
    @Test("remote set URL removes every token and returns to cursor mode; queries, items and ops are kept") func newURLResetsTokens() throws {
        // Two servers at two URLs, and a replica moved from one to the other: real sockets.
        let first = try SyncWorld(wire: .socket)
        defer { withExtendedLifetime(first) {} }
        first.raw("POST", "/tables/todoitem", body: ["id": "x", "text": "x", "complete": false])
        first.raw("POST", "/tables/todoitem", body: ["id": "y", "text": "y", "complete": true])
        // A server that cannot filter on id puts the table in skip mode.
        first.script(ScriptedTable.refusingIDFilters)
        let a = first.replica("A")
        a.expect(0, "pull")
        a.expect(0, "pull", "--query-id", "open", "--filter", "complete eq false")
        a.expect(0, "edit", "x", "--text", "mine")
        #expect(a.tableConfig()?["cursorMode"] == "skip")
        #expect(a.token("default") != nil && a.token("open") != nil)

        // The same URL, or other settings, keep the tokens.
        let config = a.tableConfig()
        a.expect(0, "remote", "set", first.url + "/")
        a.expect(0, "remote", "set", "--page-size", "10")
        #expect(a.tableConfig() == config)

        let second = try SyncWorld(wire: .socket)
        defer { withExtendedLifetime(second) {} }
        second.raw("POST", "/tables/todoitem", body: ["id": "s", "text": "s", "complete": false])
        let items = a.records("tables/todoitem/items")
        let ops = a.operations
        a.expect(0, "remote", "set", second.url)
        let reset = try #require(a.tableConfig())
        #expect(reset["cursorMode"] == "cursor")
        #expect(reset["queries"]?["default"]?["token"] == nil && reset["queries"]?["open"]?["token"] == nil)
        #expect(reset["queries"]?["open"]?["filter"] == "complete eq false" && reset["queries"]?["default"]?["filter"] == .null)
        #expect(a.records("tables/todoitem/items") == items && a.operations == ops)

        a.expect(0, "pull")
        let ts = try #require(second.row("s")?["updatedAt"]?.stringValue)
        let cursor = PullPagingTests.cursor(ts, "s")
        #expect(second.pages().map { $0.query("$filter") } == [nil, cursor, "complete eq false", cursor.wrappedAnd("complete eq false")],
                "each query starts from the beginning, in cursor mode")
        #expect(a.itemIDs() == ["s", "x", "y"])
    }

    @Test("clone creates the replica and pulls; a second clone into it fails and changes nothing") func clone() throws {
        let world = try SyncWorld(wire: .inProcess)
        defer { withExtendedLifetime(world) {} }
        try world.seed(3)
        let base = world.directory.path.appendingPath("clones")
        try LocalFileSystem().createDirectory(base)
        let shell = world.harness(base, environment: ["TODO_RETRY_WAIT_SCALE": "0"])
        let clone = shell.run("clone", world.url, "b")
        #expect(clone.code == 0, "\(clone)")
        #expect(clone.out.contains("Cloning into \(base)/b/.todo"))
        let b = CLIHarness(directory: base.appendingPath("b"))
        #expect(b.itemIDs() == ["r000", "r001", "r002"])
        #expect(b.token() == ["id": "r002", "updatedAt": world.row("r002")?["updatedAt"] ?? nil])
        #expect(b.run("remote", "--json").out.contains(world.url))

        let before = b.storeFiles()
        let again = shell.run("clone", world.url, "b")
        #expect(again.code == 1 && again.err.contains("already exists") && again.err.contains("hint:"), "\(again)")
        #expect(b.storeFiles() == before)
    }

    @Test("clone with a bad URL is a usage error and creates nothing") func cloneBadURL() throws {
        let dir = TempDirectory("todo-clone")
        defer { dir.remove() }
        let shell = CLIHarness(directory: dir.path)
        for url in ["notaurl", "ftp://127.0.0.1/x", "http://"] {
            let result = shell.run("clone", url, "c")
            #expect(result.code == 2 && result.err.contains("hint:"), "\(url): \(result)")
            #expect(!LocalFileSystem().fileExists(dir.sub("c/.todo")))
        }
    }

    @Test("clone of an unreachable server: exit 4; nothing pulled, so no half-made folder stays (issue 19)") func cloneUnreachable() throws {
        let dir = TempDirectory("todo-clone")
        defer { dir.remove() }
        // A stopped server refuses connections: only a socket can.
        let world = try SyncWorld(wire: .socket)
        let url = world.url
        world.server.stop()
        let shell = CLIHarness(directory: dir.path, environment: ["TODO_RETRY_WAIT_SCALE": "0"])
        let result = shell.run("clone", url, "d")
        #expect(result.code == 4, "\(result)")
        #expect(result.err.contains("the clone was taken back (\(dir.sub("d")) removed)"), "\(result)")
        #expect(!LocalFileSystem().fileExists(dir.sub("d")))
    }
}
