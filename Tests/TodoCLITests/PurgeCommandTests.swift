import Testing
import TodoBasics
import TodoModel
import TodoTestSupport

/// `todo purge` on real stores (sync.md §6, scenarios 77–80 and 82).
@Suite struct PurgeCommandTests {
    typealias S = ConflictStores
    static let token = TableConfig.Token(updatedAt: "2024-05-01T09:00:05.000Z", id: S.d2a1)

    static func synced() -> (TempDirectory, CLIHarness) {
        let dir = TempDirectory()
        Fixtures.copy("Stores/synced", to: dir.path)
        return (dir, CLIHarness(directory: dir.path))
    }

    @Test func purgeWithAnEmptyQueue() throws {
        // Scenario 77.
        let (dir, cli) = Self.synced()
        defer { dir.remove() }
        let r = cli.run("purge")
        #expect(r.code == 0 && r.err == "")
        #expect(r.out == "purged todoitem: removed 2 items and 1 query token; the next 'todo pull' fetches them again\n")
        #expect(S.names(dir.path, "tables/todoitem/items").isEmpty)
        let table = try #require(S.record(dir.path, "tables/todoitem/table.json"))
        #expect(table["queries"] == ["default": ["filter": nil, "lastPullAt": "2024-05-01T09:00:10.000Z"]], "the query stays, its token goes")
        #expect(table["cursorMode"] == "cursor")
        #expect(S.names(dir.path, "receipts").isEmpty)
        #expect(cli.run("doctor").code == 0)
    }

    @Test func purgeRefusesWithPendingOperations() {
        // Scenario 78.
        let (dir, cli) = Self.synced()
        defer { dir.remove() }
        #expect(cli.run("edit", "d265", "--text", "b").code == 0)
        let before = snapshot(dir.path)
        let r = cli.run("purge")
        #expect(r.code == 1 && r.out == "")
        #expect(r.err == """
            error: table todoitem has 1 pending operation; push them, or use --force to drop them
            hint: see them with 'todo status --table todoitem'

            """)
        #expect(changedPaths(snapshot(dir.path), before) == [], "the store is byte-identical")
    }

    @Test func refusalNamesOpenConflicts() {
        let dir = TempDirectory()
        defer { dir.remove() }
        Fixtures.copy("Stores/conflict", to: dir.path)
        let r = CLIHarness(directory: dir.path).run("purge")
        #expect(r.code == 1)
        #expect(r.err == """
            error: table todoitem has 1 pending operation; push them, or use --force to drop them
            hint: see them with 'todo status --table todoitem'; 'todo resolve' settles conflicts

            """)
    }

    @Test func otherTablesDoNotBlock() {
        // Scenario 79.
        let (dir, cli) = Self.synced()
        defer { dir.remove() }
        #expect(cli.run("add", "elsewhere", "--table", "other").code == 0)
        let r = cli.run("purge", "--table", "TodoItem")
        #expect(r.code == 0)
        #expect(S.names(dir.path, "tables/todoitem/items").isEmpty)
        #expect(S.names(dir.path, "operations").count == 1 && S.names(dir.path, "tables/other/items").count == 1)
    }

    @Test func forcedPurge() throws {
        // Scenario 80: an open conflict (d265) and a new insert.
        let dir = TempDirectory()
        defer { dir.remove() }
        Fixtures.copy("Stores/conflict", to: dir.path)
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("add", "new one", "--id", "n1").code == 0)
        let r = cli.run("purge", "--force")
        #expect(r.code == 0)
        #expect(r.out == """
            dropped 2 pending operations and 1 open conflict; each operation left a 'purge force' receipt (see 'todo log')
            purged todoitem: removed 3 items and 1 query token; the next 'todo pull' fetches them again

            """)
        #expect(S.names(dir.path, "operations").isEmpty && S.names(dir.path, "conflicts").isEmpty)
        #expect(S.names(dir.path, "tables/todoitem/items").isEmpty)
        #expect(S.record(dir.path, "tables/todoitem/table.json")?["queries"]?["default"]?["token"] == nil)
        let receipts = S.names(dir.path, "receipts").compactMap { S.record(dir.path, "receipts/" + $0) }
        #expect(receipts.count == 2 && receipts.allSatisfy { $0["decision"] == "purge" && $0["rule"] == "force" })
        #expect(receipts[0]["lost"] == ["client": ["text": "I love Azure!", "complete": false], "server": [:]])
        #expect(receipts[1]["lost"] == ["client": ["text": "new one", "complete": false], "server": [:]])
        #expect(cli.run("doctor").code == 0)
    }

    @Test func purgeOneQuery() throws {
        // Scenario 82: d265 is incomplete, d2a1 complete.
        let (dir, cli) = Self.synced()
        defer { dir.remove() }
        try S.setQueries(dir.path, ["default": .init(filter: nil, lastPullAt: "2024-05-01T09:00:10.000Z", token: Self.token),
                                    "open": .init(filter: "complete eq false", lastPullAt: "2024-05-01T09:00:10.000Z", token: Self.token)])
        let r = cli.run("purge", "--query-id", "open")
        #expect(r.out == "purged todoitem query 'open': removed 1 item and its token; the next 'todo pull' fetches them again\n")
        #expect(S.names(dir.path, "tables/todoitem/items") == ["d2a1c3f0-0000-4000-8000-000000000002.json"])
        let queries = try #require(S.record(dir.path, "tables/todoitem/table.json")?["queries"])
        #expect(queries["open"]?["token"] == nil && queries["open"]?["filter"] == "complete eq false")
        #expect(queries["default"]?["token"] == ["updatedAt": "2024-05-01T09:00:05.000Z", "id": .string(S.d2a1)])
        #expect(cli.run("doctor").code == 0)
    }

    @Test func filtersReadSystemProperties() throws {
        let (dir, cli) = Self.synced()
        defer { dir.remove() }
        try S.setQueries(dir.path, ["recent": .init(filter: "updatedAt gt datetime'2024-05-01T09:00:01Z' and version ne null")])
        #expect(cli.run("purge", "--query-id", "recent").out
            == "purged todoitem query 'recent': removed 1 item and no token; the next 'todo pull' fetches them again\n")
        #expect(S.names(dir.path, "tables/todoitem/items") == ["d265929e-b17b-42d1-8fab-d0adf26486fa.json"])
    }

    @Test func anUnknownQueryOrABrokenFilter() throws {
        let (dir, cli) = Self.synced()
        defer { dir.remove() }
        let before = snapshot(dir.path)
        let r = cli.run("purge", "--query-id", "nope")
        #expect(r.code == 1 && r.err == "error: table todoitem has no query 'nope'\nhint: queries of todoitem: default\n")
        try S.setQueries(dir.path, ["bad": .init(filter: "complete eq")])
        let bad = cli.run("purge", "--query-id", "bad")
        #expect(bad.code == 1)
        #expect(bad.err.hasPrefix("error: the filter of query 'bad' of table todoitem does not parse: "))
        #expect(bad.err.hasSuffix("hint: fix \"filter\" in .todo/tables/todoitem/table.json, or pull the query again with a new --filter\n"))
        #expect(changedPaths(snapshot(dir.path), before).allSatisfy { $0.hasSuffix("table.json") || $0.hasSuffix("state.json") })
        #expect(cli.run("purge", "extra").code == 2)
    }
}
