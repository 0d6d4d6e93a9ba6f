import Testing
import TableProtocol
import TodoModel
import TodoTestSupport

/// Pull queries (sync.md §5.1, §5.9; scenarios 48, 49): stored queries with filters, one-off
/// filters, validation before any request, and the exit statuses of rejected or redirected pulls.
@Suite struct PullQueryTests {
    /// x and z incomplete, y complete, on the server; replica A not pulled yet.
    static func world() throws -> (SyncWorld, CLIHarness) {
        let world = try SyncWorld(wire: .inProcess)
        world.raw("POST", "/tables/todoitem", body: ["id": "x", "text": "x", "complete": false])
        world.raw("POST", "/tables/todoitem", body: ["id": "y", "text": "y", "complete": true])
        world.raw("POST", "/tables/todoitem", body: ["id": "z", "text": "z", "complete": false])
        return (world, world.replica("A"))
    }

    static func updatedAt(_ world: SyncWorld, _ id: String) throws -> String {
        try #require(world.row(id)?["updatedAt"]?.stringValue)
    }

    @Test("48: a query's filter is combined with the cursor on every request; its token is stored under its id") func queryFilter() throws {
        let (world, a) = try Self.world()
        defer { withExtendedLifetime(world) {} }
        world.resetLog()
        a.expect(0, "pull", "--query-id", "open", "--filter", "complete eq false")
        #expect(a.itemIDs() == ["x", "z"])
        #expect(world.pages().map { $0.query("$filter") } == ["complete eq false", PullPagingTests.cursor(try Self.updatedAt(world, "z"), "z").wrappedAnd("complete eq false")])
        let queries = try #require(a.tableConfig()?["queries"]?.objectValue)
        #expect(Array(queries.keys) == ["open"], "only the named query runs and is stored")
        #expect(queries["open"]?["filter"] == "complete eq false")
        #expect(queries["open"]?["token"] == ["id": "z", "updatedAt": .string(try Self.updatedAt(world, "z"))])

        world.raw("PATCH", "/tables/todoitem/x", body: ["text": "x2"])
        world.raw("POST", "/tables/todoitem", body: ["id": "w", "text": "w", "complete": false])
        world.resetLog()
        a.expect(0, "pull")  // every stored query: here only `open`
        let filters = world.pages().compactMap { $0.query("$filter") }
        #expect(filters.count == 2 && filters.allSatisfy { $0.hasPrefix("(complete eq false) and ((updatedAt gt datetimeoffset'") })
        #expect(a.itemIDs() == ["w", "x", "z"] && a.item("x")?["text"] == "x2")
        #expect(a.token("open") == ["id": "w", "updatedAt": .string(try Self.updatedAt(world, "w"))])
    }

    @Test("49: a changed filter resets the query's token; the pull starts from the beginning and says so") func changedFilter() throws {
        let (world, a) = try Self.world()
        defer { withExtendedLifetime(world) {} }
        a.expect(0, "pull", "--query-id", "open", "--filter", "complete eq false")
        world.resetLog()
        let pull = a.expect(0, "pull", "--query-id", "open", "--filter", "text ne 'z'")
        #expect(pull.out.contains("changed") || pull.err.contains("changed"), "\(pull)")
        #expect(world.pages().first?.query("$filter") == "text ne 'z'")
        #expect(a.tableConfig()?["queries"]?["open"]?["filter"] == "text ne 'z'")
        #expect(a.token("open") == ["id": "y", "updatedAt": .string(try Self.updatedAt(world, "y"))])
        #expect(a.itemIDs() == ["x", "y", "z"])

        // The same filter again keeps the token; no --filter keeps the stored one.
        world.resetLog()
        a.expect(0, "pull", "--query-id", "open")
        #expect(world.pages().first?.query("$filter")?.hasPrefix("(text ne 'z') and (") == true)
    }

    @Test("a one-off --filter pull neither reads nor saves a token") func oneOffFilter() throws {
        let (world, a) = try Self.world()
        defer { withExtendedLifetime(world) {} }
        a.expect(0, "pull")
        let table = a.tableConfig()
        world.raw("PATCH", "/tables/todoitem/y", body: ["text": "y2"])
        world.resetLog()
        a.expect(0, "pull", "--filter", "complete eq true")
        #expect(world.pages().map { $0.query("$filter") }.first == "complete eq true", "no cursor condition")
        #expect(a.item("y")?["text"] == "y2")
        #expect(a.tableConfig()?["queries"] == table?["queries"], "no query stored or changed")
    }

    @Test("--query-id must be 1 to 64 of A-Z a-z 0-9 . _ -; a filter must parse: else exit 2, no request",
          arguments: [["--query-id", "bad id"], ["--query-id", ""], ["--query-id", String(repeating: "q", count: 65)],
                      ["--query-id", "ünï"], ["--filter", "complete eq"], ["--query-id", "open", "--filter", "(text eq 'a'"],
                      ["--filter", "nosuchfunction(text)"],
                      // Parses alone (100 levels), but not once combined with the cursor condition.
                      ["--filter", String(repeating: "(", count: 100) + "text eq 'a'" + String(repeating: ")", count: 100)]])
    func validation(_ args: [String]) throws {
        let (world, a) = try Self.world()
        defer { withExtendedLifetime(world) {} }
        let before = a.storeFiles()
        world.resetLog()
        let result = a.run(["pull"] + args)
        #expect(result.code == 2, "\(result)")
        #expect(result.err.hasPrefix("error: ") && result.err.contains("hint: "), "\(result)")
        #expect(world.requests().isEmpty)
        #expect(a.storeFiles() == before)
    }

    @Test("a valid query id of 64 characters is accepted") func longestQueryID() throws {
        let (world, a) = try Self.world()
        defer { withExtendedLifetime(world) {} }
        let id = "Aa0._-" + String(repeating: "q", count: 58)
        a.expect(0, "pull", "--query-id", id)
        #expect(a.token(id) != nil)
    }

    @Test("a query the server rejects (400) or a missing table (404): exit 1; the other queries still run") func rejectedQueries() throws {
        let (world, a) = try Self.world()
        defer { withExtendedLifetime(world) {} }
        // A filter this server cannot run, in either mode.
        world.script { request, service in
            request.target.contains("nosuchcolumn") ? ScriptedTable.error(400, "cannot run this filter") : service(request)
        }
        let bad = a.expect(1, "pull", "--query-id", "bad", "--filter", "nosuchcolumn eq 1", "--json")
        let report = try JSONValue.parse(bad.out)["queries"]?.arrayValue?.first
        #expect(report?["rejected"]?.stringValue?.contains("400") == true, "\(bad)")
        #expect(world.pages().map(\.status) == [400, 400], "the cursor page, then the same page in skip mode")
        #expect(report?["notes"] == [], "a rejected query did not switch modes")
        #expect(a.tableConfig()?["queries"]?["bad"] == nil, "nothing of a rejected query is stored")
        #expect(a.tableConfig()?["cursorMode"] == nil || a.tableConfig()?["cursorMode"] == "cursor")

        a.expect(0, "add", "local", "--table", "nosuch")
        let missing = a.expect(1, "pull")
        #expect(missing.err.contains("the server has no table 'nosuch'"), "\(missing)")
        #expect(a.itemIDs() == ["x", "y", "z"], "todoitem was still pulled")
    }

    struct Stop: Sendable, CustomTestStringConvertible {
        var status: Int
        var exit: Int32
        var message: String
        var attempts: Int
        var testDescription: String { "\(status) → exit \(exit)" }
    }

    @Test("a redirect (exit 1, naming the Location), 401 or 5xx (exit 4) stops the pull; nothing changes", arguments: [
        Stop(status: 301, exit: 1, message: "https://elsewhere.example/tables/todoitem", attempts: 1),
        Stop(status: 401, exit: 4, message: "error: the server refused the token/key (401): scripted; check 'todo remote set --token-file FILE' (a user's token) or '--app-key-file FILE' (the app key)\n", attempts: 1),
        Stop(status: 503, exit: 4, message: "503", attempts: 3),
    ])
    func stops(_ stop: Stop) throws {
        let (world, a) = try Self.world()
        defer { withExtendedLifetime(world) {} }
        world.script { _, _ in
            var response = ScriptedTable.error(stop.status, "scripted")
            response.headers.add(name: "Location", value: "https://elsewhere.example/tables/todoitem")
            return response
        }
        let before = a.storeFiles()
        let pull = a.expect(stop.exit, "pull")
        #expect(pull.err.contains(stop.message), "\(pull)")
        #expect(world.requests().count == stop.attempts, "a redirect is never followed; 5xx is tried 3 times")
        #expect(a.storeFiles() == before)
    }
}

extension String {
    /// `(q) and (self)`: a cursor condition combined with a query filter (protocol §10.5.1).
    func wrappedAnd(_ query: String) -> String { "(\(query)) and (\(self))" }
}
