import Testing
import TodoBasics
import TodoCLI
import TodoModel
import TodoTestSupport

/// Scenario 90 (sync.md §5.4): a pull stopped at any file-system step of a page commit (as kill -9
/// would stop it) leaves either the whole page with its token or none of it: never some items
/// without the token, or the token without its items.
@Suite struct PullCrashTests {
    /// Runs one command with a fixed clock, so every run writes the same bytes; `transport` is the
    /// world's (`SyncWorld.transport`) for commands that reach the server.
    static func run(_ args: [String], in dir: String, fs: any FileSystem, transport: CommandContext.TransportMaker? = nil) -> Int32 {
        let ctx = CommandContext(fs: fs, clock: .fixed(CLIHarness.epoch + 3_600_000), ids: .seeded(7),
                                 environment: ["TODO_RETRY_WAIT_SCALE": "0"], workingDirectory: dir, console: .capturing(),
                                 transport: transport)
        return TodoMain.run(args, context: ctx)
    }

    /// The store as the next command sees it: recovered by `todo doctor` (which must find it
    /// clean), then every file's bytes.
    static func recovered(_ dir: String, sourceLocation: SourceLocation = #_sourceLocation) -> [String: [UInt8]] {
        #expect(run(["doctor"], in: dir, fs: LocalFileSystem()) == 0, "todo doctor is clean", sourceLocation: sourceLocation)
        return CLIHarness(directory: dir).storeFiles()
    }

    static func copyTree(_ from: String, _ to: String) {
        let fs = LocalFileSystem()
        try? fs.createDirectory(to)
        for name in (try? fs.listDirectory(from)) ?? [] {
            if fs.isDirectory(from.appendingPath(name)) {
                copyTree(from.appendingPath(name), to.appendingPath(name))
            } else if let bytes = (try? fs.readFile(from.appendingPath(name))) ?? nil {
                try? fs.writeFile(to.appendingPath(name), bytes, sync: false)
            }
        }
    }

    @Test("90: a crash at every step of a page commit leaves the whole page and its token, or none of it") func crashDuringPageCommit() throws {
        let world = try SyncWorld(wire: .inProcess)
        defer { withExtendedLifetime(world) {} }
        for id in ["m", "c", "d"] { world.raw("POST", "/tables/todoitem", body: ["id": .string(id), "text": "a", "complete": false]) }
        let template = world.replica("template")
        template.expect(0, "pull")
        template.expect(0, "edit", "m", "--text", "mine")
        template.expect(0, "edit", "c", "--text", "mine")
        // One page that creates two items, removes one, merges one and opens a conflict.
        world.raw("PATCH", "/tables/todoitem/m", body: ["complete": true])
        world.raw("PATCH", "/tables/todoitem/c", body: ["text": "theirs"])
        world.raw("DELETE", "/tables/todoitem/d")
        world.raw("POST", "/tables/todoitem", body: ["id": "n1", "text": "new"])
        world.raw("POST", "/tables/todoitem", body: ["id": "n2", "text": "new"])

        let base = world.directory.path
        Self.copyTree(template.directory, base.appendingPath("before"))
        let before = Self.recovered(base.appendingPath("before"))
        Self.copyTree(template.directory, base.appendingPath("after"))
        #expect(Self.run(["pull"], in: base.appendingPath("after"), fs: LocalFileSystem(), transport: world.transport) == 3)
        let after = Self.recovered(base.appendingPath("after"))
        // The page is committed with its token; the empty page that ends the pull then commits
        // `lastPullAt` alone. A crash between the two leaves `after` with the old `lastPullAt`.
        var between = after
        let tablePath = "tables/todoitem/table.json"
        let afterTable = try #require(after[tablePath]), beforeTable = try #require(before[tablePath])
        var table = try #require(try JSONValue.parse(afterTable).objectValue)
        var queries = try #require(table["queries"]?.objectValue)
        var query = try #require(queries["default"]?.objectValue)
        query["lastPullAt"] = try JSONValue.parse(beforeTable)["queries"]?["default"]?["lastPullAt"]
        queries["default"] = .object(query)
        table["queries"] = .object(queries)
        between[tablePath] = JSONValue.object(table).canonicalBytes()
        // …and one commit fewer in the store's generation counter.
        let afterState = try #require(after["state.json"])
        var state = try #require(try JSONValue.parse(afterState).objectValue)
        let generation = try #require(state["generation"]?.numberValue)
        state["generation"] = .number(generation - 1)
        between["state.json"] = JSONValue.object(state).canonicalBytes()

        // What "the whole page" means here, so the states compared are the right ones.
        let page = CLIHarness(directory: base.appendingPath("after"))
        #expect(page.itemIDs() == ["c", "m", "n1", "n2"] && page.conflicts.count == 1)
        #expect(page.receipts.contains { $0["decision"] == "merge" })
        #expect(page.token()?["id"] == "n2")

        var seen: Set<String> = []
        var n = 1
        while n < 300 {
            let dir = base.appendingPath("crash-\(n)")
            Self.copyTree(template.directory, dir)
            let faulty = FaultyFileSystem(base: LocalFileSystem(), failOnCall: n)
            let code = Self.run(["pull"], in: dir, fs: faulty, transport: world.transport)
            let files = Self.recovered(dir)
            let state = files == before ? "before" : files == between ? "page" : files == after ? "after" : nil
            #expect(state != nil, "step \(n): the store holds a part of a page: \(Self.changed(files, before, between))")
            if let state { seen.insert(state) }
            if faulty.callCount < n {
                #expect(code == 3 && state == "after", "the pull finished")
                break
            }
            if code == 3 && state == "after" {
                // Every page committed; the fault hit the index of ids rebuilt after them (a cache,
                // whose failure loses nothing), or the sync of the whole store that makes it durable.
                let failed = faulty.failedPath ?? "-"
                #expect(failed.hasSuffix("/.todo") || failed.contains("/.todo/cache"), "step \(n): fault after the commits in \(failed)")
            } else {
                #expect(code != 0 && code != 3, "step \(n): a failed pull does not report success (\(faulty.failedPath ?? "-"))")
            }
            n += 1
        }
        #expect(n > 10 && n < 300)
        #expect(seen == ["before", "page", "after"], "crashes before, between and after the commits: \(seen)")
    }

    static func changed(_ files: [String: [UInt8]], _ a: [String: [UInt8]], _ b: [String: [UInt8]]) -> String {
        let keys = Set(files.keys).union(a.keys).union(b.keys)
        let fromA = keys.filter { files[$0] != a[$0] }.sorted()
        let fromB = keys.filter { files[$0] != b[$0] }.sorted()
        return "differs from before in \(fromA), from the page state in \(fromB)"
    }
}

