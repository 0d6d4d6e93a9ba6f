import Dispatch
import Synchronization
import Testing
import TodoModel
import TodoTestSupport

/// Several replicas of one server (sync.md §12 scenarios 95, 96, 97, 99).
@Suite struct MultiReplicaTests {
    /// The user fields and version of a replica's item, or of the server's row, for comparison.
    static func state(_ item: [String: JSONValue]?) -> [String: JSONValue]? {
        guard let item else { return nil }
        var out: [String: JSONValue] = [:]
        for (name, value) in item where !value.isNull {
            switch name {
            case "ms_version", "version": out["version"] = value
            case "ms_createdAt", "ms_updatedAt", "createdAt", "updatedAt", "deleted", "ms_deleted", "ms_written": continue
            default: out[name] = value
            }
        }
        return out
    }

    /// A and B (on the generations given) both holding x {text a, complete false} from the server.
    static func twoReplicas(_ ga: String = "mobile-apps", _ gb: String = "mobile-apps") throws -> (SyncWorld, CLIHarness, CLIHarness) {
        let world = try SyncWorld(wire: .inProcess)
        world.raw("POST", "/tables/todoitem", body: ["id": "x", "text": "a", "complete": false])
        let a = world.replica("A", protocol: ga), b = world.replica("B", protocol: gb)
        a.expect(0, "pull")
        b.expect(0, "pull")
        return (world, a, b)
    }

    @Test("95: a G1 and a G2 replica of one server hold the same item with the same version text") func mixedGenerations() throws {
        let world = try SyncWorld(wire: .inProcess)
        defer { withExtendedLifetime(world) {} }
        let a = world.replica("A", protocol: "mobile-services"), b = world.replica("B")
        a.expect(0, "add", "from G1", "--id", "x", "--set", "priority=1")
        a.expect(0, "push")
        b.expect(0, "pull")
        #expect(b.item("x")?["text"] == "from G1")
        b.expect(0, "edit", "x", "--text", "from G2")
        b.expect(0, "push")
        a.expect(0, "pull")
        let itemA = try #require(a.item("x")), itemB = try #require(b.item("x"))
        #expect(itemA["text"] == "from G2" && itemA["priority"] == 1)
        #expect(Self.state(itemA) == Self.state(itemB))
        #expect(itemA["ms_version"] == itemB["ms_version"] && itemA["ms_version"] == world.row("x")?["version"])
        #expect(a.operations.isEmpty && b.operations.isEmpty)
    }

    @Test("96: disjoint offline edits converge on A, B and the server, with no conflict") func disjointEditsConverge() throws {
        let (world, a, b) = try Self.twoReplicas()
        defer { withExtendedLifetime(world) {} }
        a.expect(0, "edit", "x", "--text", "from A")
        b.expect(0, "done", "x")
        a.expect(0, "sync")
        world.resetLog()
        b.expect(0, "sync")
        #expect(world.writes().map(\.status) == [412, 200], "B's PATCH met A's version, merged, and was sent again")
        a.expect(0, "sync")
        let server = try #require(world.row("x")?.objectValue)
        #expect(server["text"] == "from A" && server["complete"] == true)
        #expect(Self.state(a.item("x")) == Self.state(server) && Self.state(b.item("x")) == Self.state(server))
        for r in [a, b] { #expect(r.conflicts.isEmpty && r.operations.isEmpty) }
        #expect(b.receipts.contains { $0["decision"] == "merge" && $0["rule"] == "push" })
    }

    @Test("97: deleted on one side, edited on the other: 404, a conflict; --use-client restores x; A's pull brings it back") func deletedVersusEdited() throws {
        let (world, a, b) = try Self.twoReplicas()
        defer { withExtendedLifetime(world) {} }
        a.expect(0, "rm", "x")
        a.expect(0, "push")
        #expect(world.row("x")?["deleted"] == true)
        b.expect(0, "edit", "x", "--text", "from B")
        world.resetLog()
        let push = b.expect(3, "push")
        #expect(world.writes().map(\.status) == [404], "\(push)")
        let conflict = try #require(b.conflicts.first)
        #expect(conflict["status"] == 404 && conflict["fields"] == [] && conflict["server"]?["ms_deleted"] == true)
        #expect(conflict["operation"]?["kind"] == "update")
        #expect(b.expect(0, "status").out.contains("changed here, deleted there"))

        let deletedVersion = try #require(conflict["server"]?["ms_version"]?.stringValue)
        b.expect(0, "resolve", "x", "--use-client")
        world.resetLog()
        b.expect(0, "push")
        let writes = world.writes()
        #expect(writes.map { "\($0.method) \($0.path)" } == ["POST /tables/todoitem/x", "PATCH /tables/todoitem/x"], "an undelete, then the PATCH")
        #expect(writes.allSatisfy { (200...299).contains($0.status) })
        #expect(writes.first?.headers["If-Match"] == "\"\(deletedVersion)\"")
        let row = try #require(world.row("x")?.objectValue)
        #expect(row["deleted"] == false && row["text"] == "from B" && row["complete"] == false)
        #expect(b.operations.isEmpty && b.conflicts.isEmpty)

        a.expect(0, "pull")
        #expect(Self.state(a.item("x")) == Self.state(row))
        #expect(Self.state(b.item("x")) == Self.state(row))
    }

    enum Edits: String, CaseIterable, Sendable { case disjoint, clash }

    @Test("99: two pushes of one item at the same moment: one wins, the other meets 412 and merges or records a conflict",
          arguments: Edits.allCases)
    func concurrentPushes(_ edits: Edits) throws {
        let (world, a, b) = try Self.twoReplicas()
        defer { withExtendedLifetime(world) {} }
        a.expect(0, "edit", "x", "--text", "from A")
        if edits == .disjoint { b.expect(0, "done", "x") } else { b.expect(0, "edit", "x", "--text", "from B") }
        world.resetLog()
        let codes = Mutex<[Int32]>([0, 0])
        let replicas = [a, b]
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            let code = replicas[i].run("push").code
            codes.withLock { $0[i] = code }
        }
        let patches = world.writes()
        #expect(patches.allSatisfy { $0.method == "PATCH" })
        #expect(patches.filter { $0.status == 412 }.count == 1, "exactly one PATCH met the other's version: \(patches.map(\.status))")
        let row = try #require(world.row("x")?.objectValue)
        let exits = codes.withLock { $0 }
        switch edits {
        case .disjoint:
            #expect(exits == [0, 0])
            #expect(patches.map(\.status).sorted() == [200, 200, 412])
            #expect(row["text"] == "from A" && row["complete"] == true, "both changes are on the server")
            #expect((a.receipts + b.receipts).filter { $0["decision"] == "merge" && $0["rule"] == "push" }.count == 1)
        case .clash:
            #expect(exits.sorted() == [0, 3])
            #expect(patches.map(\.status).sorted() == [200, 412])
            let loser = exits[0] == 3 ? a : b, winner = exits[0] == 3 ? b : a
            let winnerText = winner === a ? "from A" : "from B"
            #expect(row["text"] == .string(winnerText))
            let conflict = try #require(loser.conflicts.first)
            #expect(conflict["fields"] == ["text"] && conflict["status"] == 412)
            #expect(conflict["client"]?["text"] == .string(winnerText == "from A" ? "from B" : "from A"), "the losing update is kept in the conflict")
            #expect(conflict["server"]?["text"] == .string(winnerText))
        }
    }
}
