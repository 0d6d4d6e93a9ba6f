import Testing
import TodoBasics
import TodoModel
import TodoTestSupport

/// Scenario 98 (sync.md §12): three replicas edit 20 items offline at random (a seeded generator,
/// so a failure replays), each syncs, resolves every conflict with `--use-server`, and syncs
/// again. Then every replica holds exactly the server's items, and every value a replica wrote
/// is on the server or in one of its receipts: nothing is discarded silently (§9.1).
@Suite struct MultiReplicaConvergenceTests {
    /// One replica and what the test knows it did.
    final class Replica {
        let name: String
        let cli: CLIHarness
        /// The replica's items as its commands left them: id → user fields.
        var items: [String: [String: JSONValue]]
        /// Every (id, field, value) a command changed, in order.
        var written: [(id: String, field: String, value: JSONValue)] = []

        init(_ name: String, _ cli: CLIHarness, items: [String: [String: JSONValue]]) {
            self.name = name
            self.cli = cli
            self.items = items
        }

        /// Runs a local change and records the fields it changed.
        func change(_ id: String, _ fields: [String: JSONValue], _ args: String...) {
            let result = cli.run(args)
            #expect(result.code == 0, "todo \(args.joined(separator: " ")): \(result)")
            var item = items[id] ?? [:]
            for (field, value) in fields where item[field] != value {
                written.append((id, field, value))
                item[field] = value
            }
            items[id] = item
        }

        /// Random offline work: text edits, done/undone, a number field, removals, additions.
        func work(_ rng: inout SplitMix64, steps: Int) {
            for step in 0..<steps {
                let ids = items.keys.sorted()
                let id = ids[Int.random(in: 0..<ids.count, using: &rng)]
                switch Int.random(in: 0..<10, using: &rng) {
                case 0...3:
                    let text = "\(name)-\(step)"
                    change(id, ["text": .string(text)], "edit", id, "--text", text)
                case 4, 5:
                    let done = !(items[id]?["complete"]?.boolValue ?? false)
                    change(id, ["complete": .bool(done)], done ? "done" : "undone", id)
                case 6, 7:
                    let n = Int.random(in: 1...4, using: &rng)
                    change(id, ["priority": .number(Double(n))], "edit", id, "--set", "priority=\(n)")
                case 8:
                    cli.expect(0, "rm", id)
                    items[id] = nil
                default:
                    let new = "\(name.lowercased())-new-\(step)"
                    change(new, ["text": .string(new), "complete": false], "add", new, "--id", new)
                }
            }
        }
    }

    @Test("98: three replicas converge after random offline edits, sync, resolve --use-server, sync", arguments: [UInt64(98), 2024])
    func threeReplicasConverge(_ seed: UInt64) throws {
        let world = try SyncWorld(wire: .inProcess)
        defer { withExtendedLifetime(world) {} }
        try world.seed(20, prefix: "i") { _ in ["priority": 0] }
        var rng = SplitMix64(seed: seed)
        var initial: [String: [String: JSONValue]] = [:]
        for i in 0..<20 { initial[SyncWorld.seededID("i", i)] = ["text": .string("row \(i)"), "complete": false, "priority": 0] }
        let replicas = ["A", "B", "C"].map { name in
            let cli = world.replica(name)
            cli.expect(0, "pull")
            return Replica(name, cli, items: initial)
        }
        for replica in replicas { replica.work(&rng, steps: 7) }

        for replica in replicas {
            let code = replica.cli.run("sync").code
            #expect(code == 0 || code == 3, "\(replica.name): sync")
        }
        #expect(replicas.contains { !$0.cli.conflicts.isEmpty }, "the seed makes the replicas conflict")
        for replica in replicas where !replica.cli.conflicts.isEmpty {
            replica.cli.expect(0, "resolve", "--all", "--use-server")
        }
        for replica in replicas { replica.cli.expect(0, "sync") }

        var server: [String: [String: JSONValue]] = [:]
        for row in world.rows() {
            let object = try #require(row.objectValue)
            server[try #require(object["id"]?.stringValue)] = MultiReplicaTests.state(object)
        }
        #expect(server.count >= 15)
        for replica in replicas {
            var local: [String: [String: JSONValue]] = [:]
            for item in replica.cli.records("tables/todoitem/items") {
                let object = try #require(item.objectValue)
                local[try #require(object["id"]?.stringValue)] = MultiReplicaTests.state(object)
            }
            #expect(local == server, "\(replica.name) holds exactly the server's items")
            #expect(replica.cli.operations.isEmpty && replica.cli.conflicts.isEmpty)
            // Every value it wrote survives on the server, or a receipt of its own says it lost.
            let receipts = replica.cli.receipts
            for write in replica.written where server[write.id]?[write.field] != write.value {
                let kept = receipts.contains { receipt in
                    ItemID.same(receipt["id"]?.stringValue ?? "", write.id) && receipt["lost"]?["client"]?[write.field] == write.value
                }
                #expect(kept, "\(replica.name) wrote \(write.field) = \(write.value.compactText) on \(write.id): not on the server, and no receipt lists it")
            }
        }
    }
}
