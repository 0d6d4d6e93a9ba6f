import Testing
import TodoBasics
import TodoModel
import TodoTestSupport

/// `todo resolve` on real stores (sync.md §8, scenarios 59, 61–67, 72, 73, 16).
@Suite struct ResolveCommandTests {
    typealias S = ConflictStores
    static let conflictFile = S.d265Conflict.dropFirst(".todo/".count).description
    static let op1 = "operations/0000000001.update.todoitem.d265929e-b17b-42d1-8fab-d0adf26486fa.json"
    static let item = "tables/todoitem/items/d265929e-b17b-42d1-8fab-d0adf26486fa.json"

    static func conflictStore() -> (TempDirectory, CLIHarness) {
        let dir = TempDirectory()
        Fixtures.copy("Stores/conflict", to: dir.path)
        return (dir, CLIHarness(directory: dir.path))
    }

    static func receipts(_ dir: String) -> [JSONValue] {
        S.names(dir, "receipts").compactMap { S.record(dir, "receipts/" + $0) }
    }

    @Test func theFixtureHasTheShapeOfScenario59() throws {
        let (dir, _) = Self.conflictStore()
        defer { dir.remove() }
        let c = try #require(S.record(dir.path, Self.conflictFile))
        #expect(c["table"] == "todoitem" && c["id"] == .string(S.d265) && c["status"] == 412 && c["reason"] == "conflict")
        #expect(c["operation"] == ["kind": "update", "sequence": 1] && c["fields"] == ["text"] && c["resolved"] == .null)
        #expect(c["base"]?["ms_version"] == "AAAAAAAAAAE=" && c["server"]?["ms_version"] == "AAAAAAAAAAI=")
        #expect(c["client"]?["text"] == "I love Azure!" && c["detectedAt"]?.stringValue != nil)
    }

    @Test func useClientRebasesOnTheServerVersionOffline() throws {
        // Scenarios 60 (local part) and 73: the remote in config.json is not running; nothing is sent.
        let (dir, cli) = Self.conflictStore()
        defer { dir.remove() }
        let r = cli.run("resolve", "d265", "--use-client")
        #expect(r.code == 0 && r.err == "")
        #expect(r.out == "resolved D265929E using the client copy; run 'todo push' to publish\n")
        #expect(S.names(dir.path, "conflicts").isEmpty)
        let op = try #require(S.record(dir.path, Self.op1))
        #expect(op["base"]?["ms_version"] == "AAAAAAAAAAI=" && op["item"]?["text"] == "I love Azure!" && op["attempted"] == false)
        let item = try #require(S.record(dir.path, Self.item))
        #expect(item["text"] == "I love Azure!" && item["ms_version"] == "AAAAAAAAAAI=" && item["ms_deleted"] == nil)
        let receipts = Self.receipts(dir.path)
        #expect(receipts.count == 1)
        #expect(receipts.first?["decision"] == "resolve" && receipts.first?["rule"] == "use-client")
        #expect(receipts.first?["lost"] == ["client": [:], "server": ["text": "I love Mobile Services!"]])
        #expect(cli.run("doctor").code == 0)
        // Scenario 16, the other way round: once resolved, the item can be changed again.
        #expect(cli.run("edit", "d265", "--text", "z").out == "updated D265 (folded into pending update #1)\n")
    }

    @Test func useServerDropsTheLocalChange() throws {
        // Scenario 61.
        let (dir, cli) = Self.conflictStore()
        defer { dir.remove() }
        let r = cli.run("resolve", S.d265, "--use-server")
        #expect(r.out == "resolved D265929E using the server copy; nothing to push\n" && r.code == 0)
        #expect(S.names(dir.path, "operations").isEmpty && S.names(dir.path, "conflicts").isEmpty)
        let item = try #require(S.record(dir.path, Self.item))
        #expect(item == ["id": .string(S.d265), "text": "I love Mobile Services!", "complete": false,
                         "ms_createdAt": "2024-05-01T09:00:00.000Z", "ms_updatedAt": "2024-05-02T08:12:00.000Z",
                         "ms_version": "AAAAAAAAAAI=",
                         "ms_written": "eyJjb21wbGV0ZSI6ZmFsc2UsInRleHQiOiJJIGxvdmUgTW9iaWxlIFNlcnZpY2VzISJ9"])
        #expect(Self.receipts(dir.path).first?["lost"] == ["client": ["text": "I love Azure!"], "server": [:]])
        #expect(cli.run("status", "--short").out == "## http://127.0.0.1:8080 (mobile-apps)\n", "push has nothing to send")
        #expect(cli.run("doctor").code == 0)
    }

    @Test func useServerAfterAServerDeleteRemovesTheItem() throws {
        // Scenario 62.
        let dir = TempDirectory()
        defer { dir.remove() }
        Fixtures.copy("Stores/synced", to: dir.path)
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("edit", "d2a1", "--text", "Pay the rent").code == 0)
        try S.recordConflict(dir.path, id: S.d2a1, server: S.server(S.d2a1, ["text": "Pay rent"], deleted: true))
        #expect(cli.run("status", "--short").out.contains("changed here, deleted there"))
        let r = cli.run("resolve", "d2a1", "--use-server")
        #expect(r.out == "resolved d2a1c3f0 using the server copy (deleted there, so removed here); nothing to push\n")
        #expect(S.names(dir.path, "operations").isEmpty)
        #expect(S.names(dir.path, "tables/todoitem/items") == ["d265929e-b17b-42d1-8fab-d0adf26486fa.json"])
        #expect(cli.run("doctor").code == 0)
    }

    @Test func mergeOfARecordWithoutClashingFields() throws {
        // Scenario 63: text changed here, complete there; the conflict lists no field.
        let dir = TempDirectory()
        defer { dir.remove() }
        Fixtures.copy("Stores/synced", to: dir.path)
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("edit", "d265", "--text", "mine").code == 0)
        try S.recordConflict(dir.path, id: S.d265, server: S.server(S.d265, ["text": "Mobile Services is Cool!", "complete": true]))
        let r = cli.run("resolve", "D265", "--merge")
        #expect(r.out == "resolved D265929E by merging both copies; run 'todo push' to publish\n" && r.code == 0)
        let op = try #require(S.record(dir.path, Self.op1))
        #expect(op["item"] == ["id": .string(S.d265), "text": "mine", "complete": true])
        #expect(op["base"]?["ms_version"] == "AAAAAAAAAAI=")
        let item = try #require(S.record(dir.path, Self.item))
        #expect(item["text"] == "mine" && item["complete"] == true && item["ms_version"] == "AAAAAAAAAAI=")
        let receipt = try #require(Self.receipts(dir.path).first)
        #expect(receipt["rule"] == "merge" && receipt["fields"] == ["fromClient": ["text"], "fromServer": ["complete"]])
        #expect(cli.run("doctor").code == 0)
    }

    @Test func mergeWithAClashChangesNothing() {
        // Scenario 64.
        let (dir, cli) = Self.conflictStore()
        defer { dir.remove() }
        let before = snapshot(dir.path)
        let r = cli.run("resolve", "d265", "--merge")
        #expect(r.code == 1 && r.out == "")
        #expect(r.err == """
            error: cannot merge \(S.d265): text changed on both sides
            hint: keep one side with --use-client or --use-server, or write the wanted item with --edit; 'todo diff D265929E' shows the copies

            """)
        #expect(changedPaths(snapshot(dir.path), before) == [], "the store is byte-identical")
    }

    @Test func manualObject() throws {
        // Scenario 65.
        let (dir, cli) = Self.conflictStore()
        defer { dir.remove() }
        try S.setResolved(dir.path, id: S.d265, ["text": "I love both", "complete": nil])
        let r = cli.run("resolve", "d265")
        #expect(r.out == "resolved D265929E using your resolution; run 'todo push' to publish\n" && r.code == 0)
        let op = try #require(S.record(dir.path, Self.op1))
        #expect(op["item"] == ["id": .string(S.d265), "text": "I love both"] && op["base"]?["ms_version"] == "AAAAAAAAAAI=")
        #expect(S.record(dir.path, Self.item)?["text"] == "I love both")
        #expect(Self.receipts(dir.path).first?["lost"]
            == ["client": ["text": "I love Azure!", "complete": false], "server": ["text": "I love Mobile Services!", "complete": false]])
        #expect(cli.run("doctor").code == 0)
    }

    /// Issue 15 item 7: a hand-written resolution that leaves out fields of the copies is refused,
    /// listing them, and changes nothing (it used to delete them everywhere).
    @Test func manualObjectLeavingOutFieldsIsRefused() throws {
        let (dir, cli) = Self.conflictStore()
        defer { dir.remove() }
        try S.setResolved(dir.path, id: S.d265, ["text": "I love both"])
        let before = snapshot(dir.path)
        let r = cli.run("resolve", "d265")
        #expect(r.code == 1 && r.out == "")
        #expect(r.err == """
            error: incomplete resolution for \(S.d265) in \(S.d265Conflict): it leaves out "complete", which the base, client or server copy has
            hint: write each of them with the value to keep, or null to remove it; 'todo diff D265929E' shows the copies

            """)
        #expect(changedPaths(snapshot(dir.path), before) == [], "the store is byte-identical")
    }

    @Test func manualDelete() throws {
        // Scenario 66.
        let (dir, cli) = Self.conflictStore()
        defer { dir.remove() }
        try S.setResolved(dir.path, id: S.d265, "delete")
        let r = cli.run("resolve", "d265")
        #expect(r.out == "resolved D265929E by deleting the item; run 'todo push' to publish\n")
        #expect(S.names(dir.path, "operations") == ["0000000001.delete.todoitem.d265929e-b17b-42d1-8fab-d0adf26486fa.json"])
        let op = try #require(S.record(dir.path, "operations/" + S.names(dir.path, "operations")[0]))
        #expect(op["kind"] == "delete" && op["base"]?["ms_version"] == "AAAAAAAAAAI=" && op["item"]?["text"] == "I love Azure!")
        #expect(S.record(dir.path, Self.item) == nil)
        #expect(cli.run("doctor").code == 0)
    }

    @Test func withoutAResolution() {
        // Scenario 67.
        let (dir, cli) = Self.conflictStore()
        defer { dir.remove() }
        let before = snapshot(dir.path)
        let r = cli.run("resolve", "d265")
        #expect(r.code == 1)
        #expect(r.err == """
            error: no resolution for \(S.d265); edit 'resolved' in \(S.d265Conflict), or use --use-client, --use-server or --merge
            hint: see the copies with 'todo diff D265929E'

            """)
        #expect(changedPaths(snapshot(dir.path), before) == [])
    }

    @Test func allAtOnceIsOneCommit() throws {
        // Scenario 72, first half.
        let dir = TempDirectory()
        defer { dir.remove() }
        try S.three(dir.path)
        let generation = S.record(dir.path, "state.json")?["generation"]?.intValue ?? 0
        let r = CLIHarness(directory: dir.path).run("resolve", "--all", "--use-server")
        #expect(r.code == 0)
        #expect(r.out == """
            resolved D265929E using the server copy; nothing to push
            resolved d2a1c3f0 using the server copy; nothing to push
            resolved t3 using the server copy; nothing to push

            """)
        #expect(S.names(dir.path, "conflicts").isEmpty && S.names(dir.path, "operations").isEmpty)
        #expect(Self.receipts(dir.path).filter { $0["decision"] == "resolve" }.count == 3)
        #expect(S.record(dir.path, "state.json")?["generation"]?.intValue == generation + 1, "one commit")
    }

    @Test func allAtOnceWithOneClashChangesNothing() throws {
        // Scenario 72, second half.
        let dir = TempDirectory()
        defer { dir.remove() }
        try S.three(dir.path)
        let before = snapshot(dir.path)
        let r = CLIHarness(directory: dir.path).run("resolve", "--all", "--merge")
        #expect(r.code == 1 && r.out == "")
        #expect(r.err == """
            error: nothing was resolved: 1 of 3 failed
              cannot merge \(S.d265): text changed on both sides
            hint: keep one side with --use-client or --use-server, or write the wanted item with --edit; 'todo diff D265929E' shows the copies

            """)
        #expect(changedPaths(snapshot(dir.path), before) == [])
        // Without the clashing one, the other two merge.
        let ok = CLIHarness(directory: dir.path).run("resolve", "d2a1", "T3", "--merge")
        #expect(ok.out == """
            resolved d2a1c3f0 by merging both copies; run 'todo push' to publish
            resolved t3 by merging both copies; nothing to push

            """)
        #expect(S.names(dir.path, "conflicts") == ["todoitem.d265929e-b17b-42d1-8fab-d0adf26486fa.json"])
        #expect(S.record(dir.path, "tables/todoitem/items/t3.json")?["priority"] == 1)
    }

    @Test func everyFailureIsListed() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        try S.three(dir.path)
        let before = snapshot(dir.path)
        let r = CLIHarness(directory: dir.path).run("resolve", "d265", "nope", "d2", "t3", "--merge")
        #expect(r.code == 1)
        #expect(r.err == """
            error: nothing was resolved: 3 of 4 failed
              no conflict recorded for nope
              id prefix 'd2' is ambiguous: it matches 2 conflicts (\(S.d265), \(S.d2a1))
              cannot merge \(S.d265): text changed on both sides
            hint: fix those listed, or resolve the others without them; 'todo status' lists the open conflicts

            """)
        #expect(changedPaths(snapshot(dir.path), before) == [])
    }

    @Test func laterOperationsFoldIntoTheResolvedOne() throws {
        // An update sealed by a push that died, an edit queued behind it, then the 412.
        let dir = TempDirectory()
        defer { dir.remove() }
        Fixtures.copy("Stores/synced", to: dir.path)
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("edit", "d265", "--text", "b").code == 0)
        try S.seal(dir.path, id: S.d265)
        #expect(cli.run("edit", "d265", "--text", "c", "--set", "note=\"n\"").out == "updated D265 (update #2 queued)\n")
        try S.recordConflict(dir.path, id: S.d265, server: S.server(S.d265, ["text": "theirs", "complete": false]), fields: ["text"])
        #expect(cli.run("resolve", "d265", "--use-client").code == 0)
        #expect(S.names(dir.path, "operations") == [String(Self.op1.dropFirst("operations/".count))])
        let op = try #require(S.record(dir.path, Self.op1))
        #expect(op["item"] == ["id": .string(S.d265), "text": "c", "complete": false, "note": "n"] && op["attempted"] == false)
        #expect(op["base"]?["text"] == "theirs")
        #expect(Self.receipts(dir.path).map { $0["rule"]?.stringValue } == ["update+update", "use-client"])
        #expect(cli.run("doctor").code == 0)
    }

    @Test(arguments: [
        (["resolve"], "error: missing ID (the conflicts to resolve), or --all\nhint: see 'todo resolve --help'\n"),
        (["resolve", "d265", "--use-client", "--merge"], "error: --use-client and --merge exclude each other\nhint: see 'todo resolve --help'\n"),
        (["resolve", "d265", "--all"], "error: give conflict ids or --all, not both\nhint: see 'todo resolve --help'\n"),
        (["resolve", "--all", "--edit"], "error: --edit resolves one conflict at a time; give one ID\nhint: see 'todo resolve --help'\n"),
        (["resolve", "d265", "--bogus"], "error: unknown option '--bogus' for 'todo resolve'\nhint: see 'todo resolve --help'\n"),
    ])
    func usageErrors(_ args: [String], _ err: String) {
        let (dir, cli) = Self.conflictStore()
        defer { dir.remove() }
        let r = cli.run(args)
        #expect(r.code == 2 && r.err == err)
    }

    @Test func anIDWithoutAConflict() {
        let (dir, cli) = Self.conflictStore()
        defer { dir.remove() }
        let r = cli.run("resolve", "d2a1", "--use-client")
        #expect(r.code == 1 && r.err == "error: no conflict recorded for d2a1\nhint: see the open conflicts with 'todo status'\n")
        #expect(cli.run("resolve", "--all", "--use-client", "--table", "todoitem").code == 0)
        #expect(cli.run("resolve", "--all", "--use-client").out == "no open conflicts; nothing to resolve\n")
    }
}
