import Testing
import TodoBasics
import TodoModel
import TodoTestSupport

/// What a pulled row does to the replica (sync.md §12 scenarios 41–47, 52, 53, 55, 56; §5.5), over
/// the real server unless a scenario names a scripted one.
@Suite struct PullRowsTests {
    /// A world with x ("a", incomplete) on the server and replica A holding it.
    static func synced(_ ids: [String] = ["x"]) throws -> (SyncWorld, CLIHarness) {
        let world = try SyncWorld(wire: .inProcess)
        defer { withExtendedLifetime(world) {} }
        for id in ids { world.raw("POST", "/tables/todoitem", body: ["id": .string(id), "text": "a", "complete": false]) }
        let a = world.replica("A")
        a.expect(0, "pull")
        return (world, a)
    }

    /// The files of one item: its item file and its operation files.
    static func files(of id: String, in replica: CLIHarness) -> [String: [UInt8]] {
        replica.storeFiles().filter { path, _ in
            (path.hasPrefix("tables/") || path.hasPrefix("operations/") || path.hasPrefix("conflicts/")) && path.contains(id) && !path.hasSuffix("table.json")
                && !path.contains("/numbers/")  // the table's numbers, not the item's files
        }
    }

    /// Marks the replica's operations as attempted, as a push killed after sending leaves them.
    static func seal(_ replica: CLIHarness) throws {
        let fs = LocalFileSystem()
        let dir = replica.directory.appendingPath(".todo/operations")
        for name in try fs.listDirectory(dir) ?? [] {
            let path = dir.appendingPath(name)
            let bytes = try #require(try fs.readFile(path))
            var op = try #require(try JSONValue.parse(bytes).objectValue)
            op["attempted"] = true
            op["attemptedAt"] = "2024-05-01T09:00:00.000Z"
            try fs.writeFile(path, JSONValue.object(op).canonicalBytes(), sync: false)
        }
    }

    @Test("41: deleted true removes the item; false and null upsert it; a deleted unknown id changes nothing") func deletions() throws {
        let world = try SyncWorld(wire: .inProcess)
        defer { withExtendedLifetime(world) {} }
        let table = ScriptedTable(rows: ["a", "b", "c"].enumerated().map { i, id in
            ScriptedTable.Row(id: id, updatedAt: ScriptedTable.instant(Int64(i + 1)), fields: ["text": "old"])
        })
        world.serve(table)
        let b = world.replica("B")
        b.expect(0, "pull")
        #expect(b.itemIDs() == ["a", "b", "c"])
        table.rows.withLock { rows in
            rows = [
                ScriptedTable.Row(id: "a", updatedAt: ScriptedTable.instant(10), fields: ["text": "old"], deleted: true),
                ScriptedTable.Row(id: "b", updatedAt: ScriptedTable.instant(11), fields: ["text": "new b"], deleted: false),
                ScriptedTable.Row(id: "c", updatedAt: ScriptedTable.instant(12), fields: ["text": "new c"], deleted: .null),
                ScriptedTable.Row(id: "n", updatedAt: ScriptedTable.instant(13), fields: ["text": "new n"], deleted: nil),
                ScriptedTable.Row(id: "ghost", updatedAt: ScriptedTable.instant(14), fields: ["text": "boo"], deleted: true),
            ]
        }
        let pull = b.expect(0, "pull", "--json")
        #expect(b.itemIDs() == ["b", "c", "n"])
        #expect(b.item("b")?["text"] == "new b" && b.item("c")?["text"] == "new c")
        let report = try JSONValue.parse(pull.out)["queries"]?.arrayValue?.first
        #expect(report?["removed"] == 1 && report?["updated"] == 2 && report?["created"] == 1)
        #expect(b.records("tables/todoitem/items").allSatisfy { $0["ms_deleted"] == nil }, "item files never hold ms_deleted")
    }

    @Test("42: a pending update meets its base version: item and op are unchanged") func pendingUpdateServerUnchanged() throws {
        let (world, a) = try Self.synced()
        defer { withExtendedLifetime(world) {} }
        a.expect(0, "edit", "x", "--text", "b")
        let before = Self.files(of: "x", in: a)
        #expect(before.count == 2)
        a.expect(0, "pull", "--full")
        #expect(Self.files(of: "x", in: a) == before)
        #expect(a.conflicts.isEmpty && a.receipts.allSatisfy { $0["decision"] != "merge" && $0["decision"] != "absorb" })
    }

    @Test("43: disjoint changes merge on pull; the op is re-based; the next push succeeds") func disjointMerge() throws {
        let (world, a) = try Self.synced()
        defer { withExtendedLifetime(world) {} }
        a.expect(0, "edit", "x", "--text", "b")
        world.raw("PATCH", "/tables/todoitem/x", body: ["complete": true])
        let v2 = try #require(world.row("x")?["version"])
        a.expect(0, "pull")
        let item = try #require(a.item("x"))
        #expect(item["text"] == "b" && item["complete"] == true && item["ms_version"] == v2)
        let op = try #require(a.operations.first)
        #expect(a.operations.count == 1 && op["base"]?["ms_version"] == v2 && op["item"]?["complete"] == true)
        let receipt = try #require(a.receipts.last)
        #expect(receipt["decision"] == "merge" && receipt["rule"] == "pull")
        world.resetLog()
        a.expect(0, "push")
        #expect(world.writes().map(\.status) == [200])
        #expect(world.writes().first?.headers["If-Match"] == "\"\(v2.stringValue ?? "")\"")
        #expect(world.row("x")?["text"] == "b" && world.row("x")?["complete"] == true)
        #expect(a.conflicts.isEmpty && a.operations.isEmpty)
    }

    @Test("44: a clash on pull is a conflict detected by pull; the item keeps the local text; exit 3") func clashOnPull() throws {
        let (world, a) = try Self.synced()
        defer { withExtendedLifetime(world) {} }
        a.expect(0, "edit", "x", "--text", "b")
        let op = a.operations
        world.raw("PATCH", "/tables/todoitem/x", body: ["text": "c"])
        a.expect(3, "pull")
        let conflict = try #require(a.conflicts.first)
        #expect(a.conflicts.count == 1)
        #expect(conflict["detectedBy"] == "pull" && conflict["fields"] == ["text"] && conflict["status"] == .null)
        #expect(conflict["server"]?["text"] == "c" && conflict["client"]?["text"] == "b" && conflict["base"]?["text"] == "a")
        #expect(conflict["operation"]?["kind"] == "update")
        #expect(a.item("x")?["text"] == "b")
        #expect(a.operations == op, "the op is untouched")
    }

    @Test("a pull refreshes an open conflict with the new server copy, and closes it when the server holds the change (§7.4)") func refresh() throws {
        let (world, a) = try Self.synced()
        defer { withExtendedLifetime(world) {} }
        a.expect(0, "edit", "x", "--text", "b")
        world.raw("PATCH", "/tables/todoitem/x", body: ["text": "c"])
        a.expect(3, "pull")
        world.raw("PATCH", "/tables/todoitem/x", body: ["text": "d"])
        a.expect(3, "pull")
        let refreshed = try #require(a.conflicts.first)
        #expect(refreshed["server"]?["text"] == "d" && refreshed["server"]?["ms_version"] == world.row("x")?["version"])
        #expect(refreshed["fields"] == ["text"] && a.operations.count == 1)
        world.raw("PATCH", "/tables/todoitem/x", body: ["text": "b"])
        let closing = a.expect(0, "pull", "--json")
        #expect(try JSONValue.parse(closing.out)["queries"]?.arrayValue?.first?["absorbed"] == 1)
        #expect(a.conflicts.isEmpty && a.operations.isEmpty)
        #expect(a.item("x")?["ms_version"] == world.row("x")?["version"] && a.item("x")?["text"] == "b")
        #expect(a.receipts.last?["decision"] == "absorb")
    }

    @Test("45: a sealed insert's row is not applied; push completes it by replay. An unsealed one is absorbed") func pendingInsertMeetsItsRow() throws {
        let world = try SyncWorld(wire: .inProcess)
        defer { withExtendedLifetime(world) {} }
        let a = world.replica("A")
        a.expect(0, "add", "a", "--id", "x")
        // The POST landed, then the push was killed: the op stays sealed.
        world.raw("POST", "/tables/todoitem", body: ["id": "x", "text": "a", "complete": false])
        try Self.seal(a)
        let pull = a.expect(0, "pull", "--json")
        #expect(try JSONValue.parse(pull.out)["queries"]?.arrayValue?.first?["skippedSealed"] == 1)
        #expect(a.item("x")?["ms_version"] == nil, "case 15: the row is not applied")
        #expect(a.operations.count == 1 && a.operations.first?["attempted"] == true)
        world.resetLog()
        a.expect(0, "push")
        #expect(world.writes().isEmpty, "the replay check found the row: no second POST")
        #expect(a.operations.isEmpty)
        #expect(a.receipts.contains { $0["decision"] == "replay" && $0["rule"] == "insert-exists" })

        a.expect(0, "add", "b", "--id", "y")
        world.raw("POST", "/tables/todoitem", body: ["id": "y", "text": "b", "complete": false])
        a.expect(0, "pull")
        #expect(a.operations.isEmpty, "case 4: the insert already landed")
        #expect(a.item("y")?["ms_version"] == world.row("y")?["version"])
        #expect(a.receipts.last?["decision"] == "absorb" && a.receipts.last?["rule"] == "pull")
    }

    @Test("46: a pending insert without a server row is untouched by a pull") func pendingInsertAlone() throws {
        let (world, a) = try Self.synced(["z"])
        defer { withExtendedLifetime(world) {} }
        a.expect(0, "add", "mine", "--id", "x")
        let before = Self.files(of: "x", in: a)
        world.raw("PATCH", "/tables/todoitem/z", body: ["text": "changed"])
        a.expect(0, "pull")
        #expect(Self.files(of: "x", in: a) == before)
        #expect(a.item("z")?["text"] == "changed")
    }

    @Test("47: a row whose id differs in case meets the pending update of the same item: one conflict, no second item") func differentCasedID() throws {
        let world = try SyncWorld(wire: .inProcess)
        defer { withExtendedLifetime(world) {} }
        let table = ScriptedTable(rows: [ScriptedTable.Row(id: "abc", updatedAt: ScriptedTable.instant(1), fields: ["text": "a"])])
        world.serve(table)
        let b = world.replica("B")
        b.expect(0, "pull")
        b.expect(0, "edit", "abc", "--text", "b")
        table.rows.withLock { $0 = [ScriptedTable.Row(id: "ABC", updatedAt: ScriptedTable.instant(2), fields: ["text": "c"])] }
        b.expect(3, "pull")
        #expect(b.itemIDs() == ["abc"])
        #expect(b.conflicts.count == 1)
        let conflict = try #require(b.conflicts.first)
        #expect(conflict["server"]?["id"] == "ABC" && conflict["fields"] == ["text"])
        #expect(b.item("abc")?["text"] == "b")
    }

    @Test("two server rows whose ids differ only in case: one item, the last one pulled, and a warning") func caseTwins() throws {
        let world = try SyncWorld(wire: .inProcess)
        defer { withExtendedLifetime(world) {} }
        world.serve(ScriptedTable(rows: [ScriptedTable.Row(id: "abc", updatedAt: ScriptedTable.instant(1), fields: ["text": "lower"]),
                                         ScriptedTable.Row(id: "ABC", updatedAt: ScriptedTable.instant(2), fields: ["text": "upper"])]))
        let b = world.replica("B")
        let pull = b.expect(0, "pull")
        #expect(b.itemIDs() == ["ABC"] && b.item("abc")?["text"] == "upper")
        #expect(pull.err.contains("'abc' and 'ABC'"), "\(pull)")
        let again = b.expect(0, "pull", "--full")
        #expect(again.err.occurrences(of: "differ only in case") == 1, "one warning per item and pull")
    }

    @Test("52: an item the server hard-deleted stays after pull and pull --full") func hardDeleteNotRemoved() throws {
        let (world, a) = try Self.synced(["x", "y"])
        defer { withExtendedLifetime(world) {} }
        try world.storage.write("todoitem") { $0.remove(id: "x") }
        #expect(world.row("x") == nil)
        a.expect(0, "pull")
        a.expect(0, "pull", "--full")
        #expect(a.itemIDs() == ["x", "y"])
    }

    @Test("53: pull never pushes; pending ops remain") func pullDoesNotPush() throws {
        let (world, a) = try Self.synced(["x", "y"])
        defer { withExtendedLifetime(world) {} }
        a.expect(0, "edit", "x", "--text", "b")
        a.expect(0, "rm", "y")
        a.expect(0, "add", "new", "--id", "z")
        let ops = a.operations
        #expect(ops.count == 3)
        world.resetLog()
        a.expect(0, "pull")
        #expect(world.writes().isEmpty)
        #expect(world.requests().allSatisfy { $0.method == "GET" })
        #expect(a.operations == ops)
    }

    @Test("55: the server deleted an item edited here: conflict changed here, deleted there") func deletedThere() throws {
        let (world, a) = try Self.synced()
        defer { withExtendedLifetime(world) {} }
        a.expect(0, "edit", "x", "--text", "b")
        world.raw("DELETE", "/tables/todoitem/x")
        a.expect(3, "pull")
        let conflict = try #require(a.conflicts.first)
        #expect(conflict["server"]?["ms_deleted"] == true && conflict["fields"] == [])
        #expect(conflict["operation"]?["kind"] == "update" && conflict["detectedBy"] == "pull")
        #expect(a.expect(0, "status").out.contains("changed here, deleted there"))
        #expect(a.item("x")?["text"] == "b")
    }

    @Test("56: a pending delete meets a server delete: the op is removed with a both-deleted receipt") func bothDeleted() throws {
        let (world, a) = try Self.synced()
        defer { withExtendedLifetime(world) {} }
        a.expect(0, "rm", "x")
        world.raw("DELETE", "/tables/todoitem/x")
        a.expect(0, "pull")
        #expect(a.operations.isEmpty && a.conflicts.isEmpty)
        let receipt = try #require(a.receipts.last)
        #expect(receipt["decision"] == "both-deleted" && receipt["rule"] == "pull" && receipt["kept"] == .null)
        #expect(a.itemIDs().isEmpty)
    }
}
