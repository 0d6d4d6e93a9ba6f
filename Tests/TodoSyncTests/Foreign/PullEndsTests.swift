import Testing
import TableProtocol
import TodoModel
import TodoTestSupport

/// Issue 15 item 4: a pull always ends. A server (or a proxy) that ignores `$filter`, `$orderby`,
/// `$top` or `$skip`, repeats rows, or returns the same page forever used to make `pull` loop with
/// the lock held. Now the pull notices that its pages stop bringing anything new, stops with an
/// error that names the server's fault (exit 4), keeps every page already applied, and releases
/// the lock. Honest servers, however odd (short pages, shared or hidden-precision timestamps,
/// overlapping `$skip` windows), still pull to the end.
@Suite struct PullEndsTests {
    /// 30 rows r000…r029, one millisecond apart, in id order.
    static func rows(_ count: Int = 30, sharedMillisecond: Bool = false) -> [ScriptedTable.Row] {
        (0..<count).map { i in
            ScriptedTable.Row(id: SyncWorld.seededID("r", i), updatedAt: ScriptedTable.instant(sharedMillisecond ? 7 : Int64(i)),
                              fields: ["text": .string("row \(i)")])
        }
    }

    /// The pull stopped for the server's fault, said so, and left the replica usable.
    func expectStopped(_ pull: CLIResult, _ b: CLIHarness, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(pull.code == 4, "\(pull)", sourceLocation: sourceLocation)
        #expect(pull.err.contains("does not page as asked"), "\(pull)", sourceLocation: sourceLocation)
        // The lock is free: a local change goes through at once.
        b.expect(0, "add", "after", "--id", "local", sourceLocation: sourceLocation)
    }

    @Test("a server that ignores $filter, $orderby, $top and $skip: every row applied, then a clear stop")
    func ignoresEverything() throws {
        let world = try SyncWorld()
        let table = ScriptedTable(rows: Self.rows(), ignoring: ["$filter", "$orderby", "$top", "$skip"])
        world.serve(table)
        let b = world.replica("B")
        let pull = b.run("pull")
        expectStopped(pull, b)
        #expect(b.itemIDs().filter { $0 != "local" } == Self.rows().map(\.id), "the first page held every row, and it is kept")
        #expect(table.requestCount <= 5, "\(table.requestCount) requests")
        // A clone meets the same server: it ends too, keeping the replica and its rows.
        let folder = world.directory.sub("C")
        let c = CLIHarness(directory: world.directory.path, environment: ["TODO_RETRY_WAIT_SCALE": "0"])
        let clone = c.run("clone", world.url, folder)
        #expect(clone.code == 4 && clone.err.contains("does not page as asked"), "\(clone)")
        #expect(CLIHarness(directory: folder).itemIDs() == Self.rows().map(\.id))
        #expect(table.requestCount <= 10, "\(table.requestCount) requests")
    }

    @Test("a server that answers the same first page to every request: that page is kept, then a clear stop")
    func samePageForever() throws {
        let world = try SyncWorld()
        let table = ScriptedTable(rows: Self.rows(), ignoring: ["$filter", "$skip"])
        world.serve(table)
        let b = world.replica("B")
        let pull = b.run("pull")
        expectStopped(pull, b)
        #expect(b.itemIDs().filter { $0 != "local" } == Array(Self.rows().map(\.id).prefix(30)))
        #expect(table.requestCount <= 6, "\(table.requestCount) requests")
        // A second pull meets the same server and stops again, just as soon.
        let again = b.run("pull")
        #expect(again.code == 4)
        #expect(table.requestCount <= 12, "\(table.requestCount) requests")
    }

    @Test("skip mode against a server that ignores $skip: 50 rows at one timestamp, the same page again, a clear stop")
    func ignoresSkip() throws {
        let world = try SyncWorld()
        let table = ScriptedTable(rows: Self.rows(60, sharedMillisecond: true), ignoring: ["$skip"])
        world.script { request, service in
            let filter = (try? HTTPRequestTarget(parsing: request.target))?.queryValues(for: "$filter").first
            if let filter, filter.contains("id ") { return ScriptedTable.error(400, "cannot filter on id") }
            return table.answer(request) ?? service(request)
        }
        let b = world.replica("B")
        let pull = b.run("pull")
        expectStopped(pull, b)
        #expect(b.itemIDs().filter { $0 != "local" }.count == 50, "the first page is kept")
        #expect(table.requestCount <= 6, "\(table.requestCount) requests")
    }

    @Test("a server that ignores $orderby: rows out of updatedAt order cannot be paged by $skip; a clear stop")
    func ignoresOrderBy() throws {
        let world = try SyncWorld()
        // Ids in the reverse order of their updatedAt, so id order (what this server sends) is not updatedAt order.
        let rows = (0..<80).map { i in
            ScriptedTable.Row(id: SyncWorld.seededID("r", i), updatedAt: ScriptedTable.instant(Int64(100 - i)), fields: ["n": .number(Double(i))])
        }
        let table = ScriptedTable(rows: rows, ignoring: ["$orderby"])
        world.serve(table)
        let b = world.replica("B")
        let pull = b.run("pull")
        expectStopped(pull, b)
        #expect(pull.err.contains("$orderby"), "\(pull)")
        #expect(table.requestCount <= 4, "\(table.requestCount) requests")
    }

    @Test("honest but odd: pages that overlap (a server that skips only half of $skip) still pull every row")
    func overlappingPagesEnd() throws {
        let world = try SyncWorld()
        let table = ScriptedTable(rows: Self.rows(120))
        world.script { request, service in
            let filter = (try? HTTPRequestTarget(parsing: request.target))?.queryValues(for: "$filter").first
            if let filter, filter.contains("id ") { return ScriptedTable.error(400, "cannot filter on id") }
            guard request.method == "GET", request.path == "/tables/todoitem",
                  let skip = (try? HTTPRequestTarget(parsing: request.target))?.queryValues(for: "$skip").first.flatMap({ Int($0) })
            else { return table.answer(request) ?? service(request) }
            var halved = request
            halved.target = request.target.replacing("$skip=\(skip)", with: "$skip=\(skip / 2)")
            return table.answer(halved) ?? service(request)
        }
        let b = world.replica("B")
        b.expect(0, "pull")
        #expect(b.itemIDs().count == 120)
    }

    @Test("honest: Node's pages capped at 2 rows, with rows sharing timestamps, pull to the end")
    func shortPagesEnd() throws {
        let world = try SyncWorld()
        let table = ScriptedTable(rows: Self.rows(9, sharedMillisecond: true) + Self.rows(20).dropFirst(9).map { $0 })
        world.script { request, service in ForeignServer.node.answer(request) { table.answer($0) ?? service($0) } }
        let b = world.replica("B")
        b.expect(0, "pull")
        #expect(b.itemIDs().count == 20)
    }
}
