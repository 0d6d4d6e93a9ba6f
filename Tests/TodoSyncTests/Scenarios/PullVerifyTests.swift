import Testing
import TableProtocol
import TodoModel
import TodoTestSupport

/// Issue 22 item 3: `todo pull --verify` finds the copies a server that served half a write left
/// behind (a row at its real version without one of its fields), and repairs exactly those, with
/// a receipt for the values it replaces.
@Suite struct PullVerifyTests {
    /// Every list answer shows row `id` without `field`, at its real version: a torn read.
    static func tearing(_ world: SyncWorld, _ id: String, drop field: String) {
        world.script { request, service in
            var response = service(request)
            guard request.isList, case .array(let rows)? = try? JSONValue.parse(response.body) else { return response }
            response.body = JSONValue.array(rows.map { row in
                guard row["id"]?.stringValue == id, var o = row.objectValue else { return row }
                o[field] = nil
                return .object(o)
            }).compactBytes()
            return response
        }
    }

    /// x and y on the server, x with `note`; B pulled x through a tearing server, so its copy of
    /// x lacks `note` under x's real version, and no later pull brings it back.
    func damagedReplica(_ world: SyncWorld, sourceLocation: SourceLocation = #_sourceLocation) -> CLIHarness {
        let a = world.replica("A"), b = world.replica("B")
        a.expect(0, "add", "x text", "--id", "x", "--set", "note=\"kept\"", sourceLocation: sourceLocation)
        a.expect(0, "add", "y text", "--id", "y", sourceLocation: sourceLocation)
        a.expect(0, "push", sourceLocation: sourceLocation)
        Self.tearing(world, "x", drop: "note")
        b.expect(0, "pull", sourceLocation: sourceLocation)
        world.script(nil)
        b.expect(0, "pull", sourceLocation: sourceLocation)
        #expect(b.item("x")?["note"] == nil, "the damage stays after an ordinary pull", sourceLocation: sourceLocation)
        #expect(b.item("x")?["ms_version"]?.stringValue == world.version("x"), sourceLocation: sourceLocation)
        return b
    }

    @Test("a copy without a field at the server's version is found and repaired, with a receipt; only that item changes")
    func repairsTheItem() throws {
        let world = try SyncWorld(wire: .inProcess)
        let b = damagedReplica(world)
        let before = b.snapshot()
        let verify = b.expect(0, "pull", "--verify")
        #expect(verify.out.contains("verified todoitem: 2 rows, 1 copy differs from the server at the same version"), "\(verify)")
        #expect(verify.out.contains("note absent here, \"kept\" on the server"), "\(verify)")
        #expect(b.item("x")?["note"] == "kept")
        let receipt = try #require(b.receipts.last)
        #expect(receipt["decision"] == "repair" && receipt["rule"] == "verify")
        #expect(receipt["lost"]?["client"] == ["note": .null])
        let changed = b.snapshot().filter { before[$0.key] != $0.value }.keys.sorted()
        #expect(changed.count == 2 && changed.contains("tables/todoitem/items/x.json") && changed.contains { $0.hasPrefix("receipts/") },
                "\(changed)")
        // Verified again: all agree, nothing is written.
        let after = b.snapshot()
        let again = b.expect(0, "pull", "--verify", "--json")
        let json = try JSONValue.parse(again.out)
        #expect(json["differences"] == [])
        #expect(json["tables"]?.arrayValue?.first?["rows"] == 2)
        #expect(b.snapshot() == after)
    }

    @Test("the base of a pending edit made on the damaged copy is repaired, and the push does not clear the hidden field")
    func repairsTheBaseOfAPendingEdit() throws {
        let world = try SyncWorld(wire: .inProcess)
        let b = damagedReplica(world)
        b.expect(0, "edit", "x", "--text", "edited")
        b.expect(0, "pull", "--verify")
        let op = try #require(b.operations.first)
        #expect(op["base"]?["note"] == "kept")
        #expect(op["item"]?["note"] == "kept", "the change did not touch note: it keeps the server's value")
        #expect(op["item"]?["text"] == "edited")
        #expect(b.item("x")?["note"] == "kept")
        world.resetLog()
        b.expect(0, "push")
        #expect(world.writes().first?.json?["note"] == "kept")
        #expect(world.row("x")?["note"] == "kept")
        #expect(world.row("x")?["text"] == "edited")
    }

    @Test("without a damaged copy the check changes nothing; versions that differ are for an ordinary pull")
    func cleanReplica() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A"), b = world.replica("B")
        a.expect(0, "add", "x text", "--id", "x")
        a.expect(0, "push")
        b.expect(0, "pull")
        world.raw("PATCH", "/tables/todoitem/x", body: ["text": "newer"])
        let before = b.snapshot()
        let verify = b.expect(0, "pull", "--verify")
        #expect(verify.out.contains("every copy agrees with the server"), "\(verify)")
        #expect(b.snapshot() == before)
    }

    @Test("doctor --remote reports the damaged copy and changes nothing; after pull --verify it is clean")
    func doctorRemote() throws {
        let world = try SyncWorld(wire: .inProcess)
        let b = damagedReplica(world)
        let before = b.snapshot()
        let doctor = b.expect(1, "doctor", "--remote")
        #expect(doctor.out.contains("1 copy differs from the server at the same version"), "\(doctor)")
        #expect(doctor.out.contains("use \"todo pull --verify\""), "\(doctor)")
        #expect(b.snapshot() == before)
        let json = try JSONValue.parse(b.expect(1, "doctor", "--remote", "--json").out)
        #expect(json["remote"]?["differences"]?.arrayValue?.first?["id"] == "x")
        #expect(json["ok"] == true, "the local checks pass: the damage is only visible against the server")
        b.expect(0, "pull", "--verify")
        b.expect(0, "doctor", "--remote")
    }

    @Test("--verify takes no query options")
    func usage() throws {
        let world = try SyncWorld(wire: .inProcess)
        let b = world.replica("B")
        let r = b.expect(2, "pull", "--verify", "--full")
        #expect(r.err.contains("--verify reads the whole table; it does not take --full"), "\(r)")
    }
}
