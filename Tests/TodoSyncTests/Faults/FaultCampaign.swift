import Testing
import TodoBasics
import TodoModel
import TodoTestSupport

/// One fault campaign: a real server, the fault proxy in front of it, replicas that reach the
/// server only through the proxy, and a model of every change the replicas acknowledged.
///
/// The work is chosen so that faults are the only thing that could make anything go wrong:
/// each replica changes its own items, and on the shared items each replica owns one field,
/// so concurrent edits always merge cleanly. A conflict, a duplicate, a lost value or a
/// resurrected item can then only come from mishandling a fault, and the model knows exactly
/// what the server must hold at the end.
final class FaultCampaign {
    /// Fields of the shared items, one per replica (by index).
    static let sharedFields = ["text", "priority", "complete"]
    static let sharedCount = 4
    /// Short, so that a delayed request or answer costs little; the final sync uses a long one.
    static let timeout = "0.5"

    let world: SyncWorld
    let proxy: FaultProxy
    let replicas: [CLIHarness]
    var rng: SplitMix64
    /// What the server must hold: id → user fields (and id).
    var expected: [String: [String: JSONValue]] = [:]
    var deleted: Set<String> = []
    var stats = Stats()
    private var nextID = 0

    struct Stats: CustomStringConvertible {
        var rounds = 0, changes = 0, sealedChanges = 0, pushes = 0, pulls = 0, stops = 0
        var description: String {
            "rounds=\(rounds) changes=\(changes) (after a stop: \(sealedChanges)) push/sync runs=\(pushes) pull runs=\(pulls) stopped runs (exit 4)=\(stops)"
        }
    }

    init(replicas count: Int, seed: UInt64) throws {
        world = try SyncWorld()
        proxy = FaultProxy(upstreamPort: world.port)
        rng = SplitMix64(seed: seed)
        try world.seed(Self.sharedCount, prefix: "s") { _ in ["priority": 0] }
        for i in 0..<Self.sharedCount {
            let id = SyncWorld.seededID("s", i)
            expected[id] = ["id": .string(id), "text": .string("row \(i)"), "complete": false, "priority": 0]
        }
        let root = world.directory.path, url = proxy.url
        replicas = (0..<count).map { index in
            let dir = root.appendingPath("r\(index)")
            try? LocalFileSystem().createDirectory(dir)
            // Every other replica pipelines its batches of 3 on one connection, so faults also cut
            // pipelines; the others deal them over separate connections.
            let cli = CLIHarness(directory: dir, environment: ["TODO_RETRY_WAIT_SCALE": "0", "TODO_REQUEST_TIMEOUT": Self.timeout, "TODO_PUSH_BATCH": "3",
                                                               "TODO_PUSH_CONNECTIONS": index % 2 == 0 ? "1" : "4"])
            cli.expect(0, "init", "--remote", url)
            // Small pages, so a pull takes several requests and a fault can hit it mid-way.
            cli.expect(0, "remote", "set", "--page-size", "3")
            cli.expect(0, "pull")  // the shared items; the plan is clean until the test sets one
            return cli
        }
    }

    deinit {
        proxy.stop()
    }

    // MARK: Work

    /// One round: every replica makes a few offline changes, then pushes (or syncs) through the
    /// proxy until it gets through, sometimes pulling first.
    func round() {
        stats.rounds += 1
        for (index, cli) in replicas.enumerated() {
            for _ in 0..<Int.random(in: 1...4, using: &rng) { change(index, cli) }
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: retry(cli, "sync")
            case 1:
                retry(cli, "pull")
                retry(cli, "push")
            default: retry(cli, "push")
            }
            #expect(cli.operations.isEmpty, "r\(index): the queue is empty after a push that got through")
            #expect(cli.conflicts.isEmpty, "r\(index): faults alone never make a conflict: \(cli.conflicts.map(\.compactText))")
            checkDeletedStayDeleted()
        }
    }

    /// One acknowledged local change by replica `index`, recorded in the model.
    /// `ownOnly` (between a stopped push and its retry, when ops may be sealed): only the
    /// replica's own items, which nobody else changes, so a later op behind a sealed one can
    /// never meet a legitimate conflict.
    private func change(_ index: Int, _ cli: CLIHarness, ownOnly: Bool = false) {
        stats.changes += 1
        let own = expected.keys.filter { $0.hasPrefix("r\(index)-") }.sorted()
        let roll = Int.random(in: ownOnly ? 3..<10 : 0..<10, using: &rng)
        if roll < 3 || (own.isEmpty && roll < 7 && !ownOnly) {
            let id = SyncWorld.seededID("s", Int.random(in: 0..<Self.sharedCount, using: &rng))
            edit(cli, id, field: Self.sharedFields[index % Self.sharedFields.count])
        } else if roll < 7, let id = own.randomElement(using: &rng) {
            edit(cli, id, field: Self.sharedFields[Int.random(in: 0..<3, using: &rng)])
        } else if roll < 9 || own.isEmpty {
            nextID += 1
            let id = "r\(index)-\(nextID)"
            guard cli.expect(0, "add", "item \(id)", "--id", id).code == 0 else { return }
            expected[id] = ["id": .string(id), "text": .string("item \(id)"), "complete": false]
        } else if let id = own.randomElement(using: &rng) {
            guard cli.expect(0, "rm", id).code == 0 else { return }
            expected[id] = nil
            deleted.insert(id)
        }
    }

    private func edit(_ cli: CLIHarness, _ id: String, field: String) {
        let value: JSONValue
        let result: CLIResult
        switch field {
        case "text":
            nextID += 1
            value = .string("text \(nextID)")
            result = cli.expect(0, "edit", id, "--text", "text \(nextID)")
        case "priority":
            let n = Int.random(in: 1...99, using: &rng)
            value = .number(Double(n))
            result = cli.expect(0, "edit", id, "--set", "priority=\(n)")
        default:
            let done = !(expected[id]?["complete"]?.boolValue ?? false)
            value = .bool(done)
            result = cli.expect(0, done ? "done" : "undone", id)
        }
        if result.code == 0 { expected[id]?[field] = value }
    }

    /// Runs `command` until it gets through (exit 0). Exit 4 is a stop the faults may cause;
    /// anything else fails the test with the transcript.
    /// After a stop, the replica sometimes changes its own items before retrying (sync.md §3.5:
    /// changes behind sealed ops).
    func retry(_ cli: CLIHarness, _ command: String, attempts: Int = 40) {
        let index = replicas.firstIndex { $0 === cli } ?? 0
        for _ in 0..<attempts {
            if command == "pull" { stats.pulls += 1 } else { stats.pushes += 1 }
            let result = cli.run(command)
            if result.code == 0 { return }
            guard result.code == 4 else {
                Issue.record("todo \(command): exit \(result.code) under faults\n\(result)")
                return
            }
            stats.stops += 1
            if Bool.random(using: &rng) {
                stats.sealedChanges += 1
                change(index, cli, ownOnly: true)
            }
        }
        Issue.record("todo \(command) never got through in \(attempts) attempts")
    }

    // MARK: Invariants

    /// A deleted item is deleted (or absent) on the server, whatever the faults did.
    func checkDeletedStayDeleted() {
        for id in deleted.sorted() {
            if let row = world.row(id), row["deleted"]?.boolValue != true {
                Issue.record("\(id) was deleted and acknowledged, but is live on the server: \(row.compactText)")
            }
        }
    }

    /// Stops faulting, lets held requests land, syncs every replica with a long timeout, then
    /// checks everything the campaign promises.
    func finish(_ label: String) throws {
        proxy.setPlan(.clean)
        proxy.quiesce()
        let calm = replicas.map {
            CLIHarness(directory: $0.directory, environment: ["TODO_RETRY_WAIT_SCALE": "0", "TODO_REQUEST_TIMEOUT": "10"])
        }
        for cli in calm + calm { cli.expect(0, "sync") }

        // The server: one row per id, exactly the acknowledged state, deletions kept.
        let all = world.raw("GET", "/tables/todoitem?$top=1000&__includeDeleted=true").json?.arrayValue ?? []
        let ids = all.compactMap { $0["id"]?.stringValue }
        #expect(ids.count == Set(ids).count, "one row per id: \(ids.sorted())")
        var server: [String: [String: JSONValue]] = [:]
        for row in world.rows() {
            let object = try #require(row.objectValue)
            server[try #require(object["id"]?.stringValue)] = MultiReplicaTests.state(object)
        }
        #expect(Set(server.keys) == Set(expected.keys), "live items: extra \(Set(server.keys).subtracting(expected.keys).sorted()), missing \(Set(expected.keys).subtracting(server.keys).sorted())")
        for (id, fields) in expected.sorted(by: { $0.key < $1.key }) {
            var held = server[id] ?? [:]
            held["version"] = nil
            #expect(held == fields, "\(id): the server holds \(held), the replicas acknowledged \(fields)")
        }
        checkDeletedStayDeleted()

        // Every replica: converged with the server, nothing pending, doctor clean.
        var replays = 0
        for (index, cli) in replicas.enumerated() {
            var local: [String: [String: JSONValue]] = [:]
            for item in cli.records("tables/todoitem/items") {
                let object = try #require(item.objectValue)
                local[try #require(object["id"]?.stringValue)] = MultiReplicaTests.state(object)
            }
            #expect(local == server, "r\(index) holds exactly the server's items")
            #expect(cli.operations.isEmpty && cli.conflicts.isEmpty, "r\(index): nothing pending, no conflict")
            let doctor = cli.run("doctor")
            #expect(doctor.code == 0, "r\(index): doctor\n\(doctor)")
            replays += cli.receipts.filter { $0["decision"] == "replay" }.count
        }

        let counts = proxy.counts
        let faults = counts.faults.sorted { $0.key < $1.key }.map { "\($0.key.rawValue)=\($0.value)" }.joined(separator: " ")
        print("fault campaign \(label): \(stats) requests=\(counts.requests) forwarded=\(counts.forwarded) connections=\(counts.connections) faults=\(counts.totalFaults) [\(faults)] replay receipts=\(replays) items=\(expected.count) deleted=\(deleted.count)")
    }
}
