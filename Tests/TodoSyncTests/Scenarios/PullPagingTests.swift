import Synchronization
import Testing
import TableProtocol
import TodoModel
import TodoTestSupport

/// How a pull pages (sync.md §12 scenarios 40, 50, 51, 54, 57, 58; protocol §10.5): shared
/// timestamps, the `updatedAt ge` + `$skip` fallback, hidden timestamp precision, resuming after
/// a stop, G1 spelling, and a `Link` header that must not be followed.
@Suite struct PullPagingTests {
    /// `(updatedAt gt datetimeoffset'T') or ((updatedAt eq datetimeoffset'T') and (id gt 'I'))`.
    static func cursor(_ t: String, _ id: String, name: String = "updatedAt") -> String {
        "(\(name) gt datetimeoffset'\(t)') or ((\(name) eq datetimeoffset'\(t)') and (id gt '\(id)'))"
    }

    static func pullJSON(_ result: CLIResult) -> JSONValue? {
        (try? JSONValue.parse(result.out))?["queries"]?.arrayValue?.first
    }

    @Test("40: rows sharing one updatedAt across a page boundary are applied exactly once") func sharedTimestamps() throws {
        let world = try SyncWorld(wire: .inProcess)
        defer { withExtendedLifetime(world) {} }
        // Rows 1…60 (ids r001…r060), one millisecond apart, except rows 49 to 52 which share one.
        let rows = (1...60).map { i in
            ScriptedTable.Row(id: "r" + String(1000 + i).dropFirst(), updatedAt: ScriptedTable.instant(Int64((49...52).contains(i) ? 49 : i)),
                              fields: ["text": .string("row \(i)")])
        }
        let table = ScriptedTable(rows: rows)
        world.serve(table)
        let b = world.replica("B")
        world.resetLog()
        let pull = b.expect(0, "pull", "--json")
        let report = try #require(Self.pullJSON(pull))
        #expect(report["received"] == 60 && report["created"] == 60, "every row once: \(pull)")
        let pages = world.pages()
        #expect(pages.count == 3, "50 rows, 10 rows, then an empty page")
        #expect(pages.first?.query("$filter") == nil)
        let shared = table.text(ScriptedTable.instant(49))
        #expect(pages.dropFirst().first?.query("$filter") == Self.cursor(shared, "r050"), "the second page starts after (T, id of row 50)")
        #expect(pages.allSatisfy { $0.query("$orderby") == "updatedAt asc,id asc" && $0.query("$top") == "50" && $0.query("$skip") == nil })
        #expect(b.itemIDs().count == 60)
        #expect(b.tableConfig()?["cursorMode"] == "cursor")
        #expect(b.token() == ["id": "r060", "updatedAt": .string(table.text(ScriptedTable.instant(60)))])
    }

    @Test("50: a server that cannot filter on id: the page is retried with updatedAt ge + $skip; cursorMode becomes skip") func fallbackOnBadRequest() throws {
        let world = try SyncWorld(wire: .inProcess)
        defer { withExtendedLifetime(world) {} }
        try world.seed(120)
        world.script(ScriptedTable.refusingIDFilters)
        let b = world.replica("B")
        world.resetLog()
        let pull = b.expect(0, "pull", "--json")
        let report = try #require(Self.pullJSON(pull))
        let pages = world.pages()
        // Page 1 has no cursor yet; page 2 (cursor after r049) is refused once and asked again as
        // `updatedAt ge T(r049)`, $skip 0; the later pages skip the rows at their T already applied.
        #expect(pages.map(\.status) == [200, 400, 200, 200, 200], "\(pages.map(\.target))")
        let t49 = try #require(world.row("r049")?["updatedAt"]?.stringValue)
        let t98 = try #require(world.row("r098")?["updatedAt"]?.stringValue)
        let t119 = try #require(world.row("r119")?["updatedAt"]?.stringValue)
        #expect(pages[1].query("$filter") == Self.cursor(t49, "r049"))
        let fallback = Array(pages.dropFirst(2))
        #expect(fallback.map { $0.query("$filter") } == ["updatedAt ge datetimeoffset'\(t49)'", "updatedAt ge datetimeoffset'\(t98)'",
                                                           "updatedAt ge datetimeoffset'\(t119)'"])
        #expect(fallback.map { $0.query("$skip") } == ["0", "1", "1"])
        #expect(fallback.allSatisfy { $0.query("$orderby") == "updatedAt asc" })
        // Every row arrives; the only one received twice is the row at the token's T (§10.5.3).
        #expect(report["received"] == 121 && report["created"] == 120)
        #expect(b.itemIDs().count == 120)
        #expect(b.tableConfig()?["cursorMode"] == "skip")
        #expect(b.token() == ["id": nil, "updatedAt": .string(t119)])
        #expect(report["notes"]?.arrayValue?.isEmpty == false, "the pull says it switched")

        // The next pull stays in skip mode from T with $skip 0.
        world.resetLog()
        b.expect(0, "pull")
        #expect(world.pages().first?.query("$filter") == "updatedAt ge datetimeoffset'\(t119)'")
        #expect(world.pages().first?.query("$skip") == "0")
        #expect(world.pages().allSatisfy { $0.status == 200 })

        // --full starts in cursor mode again, and so re-tests the server (sync.md §5.7).
        world.resetLog()
        b.expect(0, "pull", "--full")
        #expect(world.pages().first?.query("$orderby") == "updatedAt asc,id asc" && world.pages().first?.query("$filter") == nil)
        #expect(world.pages().dropFirst().first?.status == 400)
        #expect(b.tableConfig()?["cursorMode"] == "skip")
        #expect(b.token() == ["id": nil, "updatedAt": .string(t119)])
    }

    @Test("51: a server hiding timestamp precision: the pull ends, every row arrives, cursorMode becomes skip") func hiddenPrecision() throws {
        let world = try SyncWorld(wire: .inProcess)
        defer { withExtendedLifetime(world) {} }
        // Four milliseconds, three rows in each, 0.1 ms apart; ids in another order than time.
        var rows: [ScriptedTable.Row] = []
        for group in 0..<4 {
            for (k, name) in ["c", "a", "b"].enumerated() {
                rows.append(ScriptedTable.Row(id: "g\(group)\(name)", updatedAt: ScriptedTable.instant(Int64(10 * group), ticks: Int64(1000 * (k + 1))),
                                              fields: ["text": .string("g\(group)\(name)")]))
            }
        }
        let table = ScriptedTable(rows: rows, sentDigits: 3, requestLimit: 40)
        world.serve(table)
        let b = world.replica("B")
        b.expect(0, "remote", "set", "--page-size", "4")
        world.resetLog()
        let pull = b.expect(0, "pull", "--json")
        let report = try #require(Self.pullJSON(pull))
        #expect(b.itemIDs() == rows.map(\.id).sorted(), "\(pull)")
        #expect(b.tableConfig()?["cursorMode"] == "skip")
        #expect(b.token() == ["id": nil, "updatedAt": .string(table.text(ScriptedTable.instant(30)))])
        #expect(report["notes"]?.arrayValue?.isEmpty == false)
        let pages = world.pages()
        #expect(pages.count < 10, "no endless loop: \(pages.count) pages")
        // Page 2 brought back g1c (applied at T in page 1); the first fallback page starts at the
        // last committed token's T with $skip 0 rather than at the beginning.
        let t10 = table.text(ScriptedTable.instant(10))
        #expect(pages[1].query("$filter") == Self.cursor(t10, "g1c"))
        #expect(pages[2].query("$filter") == "updatedAt ge datetimeoffset'\(t10)'" && pages[2].query("$skip") == "0")
        #expect(pages.dropFirst(2).allSatisfy { $0.query("$filter")?.contains("id gt") == false })
    }

    @Test("54: a pull stopped after its 4th page keeps 200 items and row 200's token; the next pull resumes after it") func interruptedPullResumes() throws {
        let world = try SyncWorld(wire: .inProcess)
        defer { withExtendedLifetime(world) {} }
        try world.seed(500)
        let served = Mutex(0)
        world.script { request, service in
            guard request.method == "GET" else { return service(request) }
            let n = served.withLock { n -> Int in n += 1; return n }
            return n >= 5 ? ScriptedTable.error(503, "unavailable") : service(request)
        }
        let b = world.replica("B")
        let stopped = b.expect(4, "pull")
        #expect(stopped.err.contains("503"), "\(stopped)")
        #expect(world.pages().count == 7, "4 pages, then the 5th tried 3 times")
        #expect(b.itemIDs() == (0..<200).map { SyncWorld.seededID("r", $0) })
        let t199 = try #require(world.row("r199")?["updatedAt"]?.stringValue)
        #expect(b.token() == ["id": "r199", "updatedAt": .string(t199)])

        world.script(nil)
        world.resetLog()
        let resumed = b.expect(0, "pull", "--json")
        #expect(world.pages().first?.query("$filter") == Self.cursor(t199, "r199"))
        #expect(Self.pullJSON(resumed)?["received"] == 300)
        #expect(b.itemIDs().count == 500)
    }

    @Test("57: G1 pull: __updatedAt in $filter and $orderby, __includeDeleted, __systemproperties, no ZUMO-API-VERSION") func generationOnePull() throws {
        let world = try SyncWorld(wire: .inProcess)
        defer { withExtendedLifetime(world) {} }
        world.raw("POST", "/tables/todoitem", body: ["id": "x", "text": "keep"])
        world.raw("POST", "/tables/todoitem", body: ["id": "y", "text": "goes"])
        let a = world.replica("A", protocol: "mobile-services")
        world.resetLog()
        a.expect(0, "pull")
        #expect(a.itemIDs() == ["x", "y"])
        #expect(a.item("x")?["ms_version"] == world.row("x")?["version"])
        world.raw("DELETE", "/tables/todoitem/y")
        a.expect(0, "pull")
        #expect(a.itemIDs() == ["x"], "the row with __deleted true is removed")
        let pages = world.pages()
        #expect(pages.count == 4)
        for page in pages {
            #expect(page.headers["ZUMO-API-VERSION"] == nil)
            #expect(page.query("$orderby") == "__updatedAt asc,id asc")
            #expect(page.query("__includeDeleted") == "true" && page.target.contains("__includeDeleted=true"))
            #expect(page.query("__systemproperties") == "__createdAt,__updatedAt,__version,__deleted")
        }
        let token = try #require(a.token()?["updatedAt"]?.stringValue)
        #expect(pages.last?.query("$filter") == Self.cursor(token, "y", name: "__updatedAt"))
    }

    @Test("58: a malformed Link header is never followed", arguments: ["http://127.0.0.1/?%24top=50&%24skip=50; rel=next", "<LINK>; rel=next"])
    func malformedLink(_ link: String) throws {
        let world = try SyncWorld(wire: .inProcess)
        defer { withExtendedLifetime(world) {} }
        try world.seed(60)
        // The second form points at this very server, with a marker, so a request for it would show.
        let value = link.replacing("LINK", with: "\(world.url)/tables/todoitem?%24skip=7&marker=link")
        world.script { request, service in
            var response = service(request)
            if request.method == "GET" { response.headers.add(name: "Link", value: value) }
            return response
        }
        let b = world.replica("B")
        world.resetLog()
        b.expect(0, "pull")
        #expect(b.itemIDs().count == 60)
        #expect(world.requests().count == 3)
        #expect(world.requests().allSatisfy { $0.path == "/tables/todoitem" && $0.query("marker") == nil && $0.query("$skip") == nil })
    }
}
