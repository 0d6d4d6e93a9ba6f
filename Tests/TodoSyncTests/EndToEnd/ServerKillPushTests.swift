#if canImport(Glibc)
import Glibc
#endif
import Testing
import TodoBasics
import TodoModel
import TodoTestSupport

/// Issue 5 item 2, the server half: three real `todo push` processes send inserts, updates and
/// deletes at once while the real `todo-server` is SIGKILLed; the server restarts on the same data
/// directory and port. Every op a push took off its queue was acknowledged by the server with a
/// 2xx, so it must be there after the restart, before anyone pushes again; after the pushes are
/// run again, the server holds every op exactly once (replay never duplicates an insert).
///
/// Long mode: `TODO_CRASH_SERVER_ROUNDS=N` (default 4); `TODO_CRASH_SEED` picks the moments.
@Suite(.serialized) struct ServerKillPushTests {
    struct QueuedOp {
        var kind: String
        var id: String
        var text: String?
    }

    @Test func everyOperationTheServerAcknowledgedSurvivesItsKill() throws {
        let seed = UInt64(CrashCampaignTests.environment("TODO_CRASH_SEED") ?? 1)
        let rounds = CrashCampaignTests.environment("TODO_CRASH_SERVER_ROUNDS") ?? 4
        var rng = SplitMix64(seed: seed)
        let server = try BinaryTutorialTests.ServerProcess()
        let names = ["A", "B", "C"]
        for name in names { #expect(server.todo("init --remote \(server.url)", in: name).code == 0) }
        // What the server must hold once every queue is empty: id → text, nil once deleted.
        var expected: [String: String?] = [:]
        var counter = 0
        func queue(_ r: Int, adds: Int, edits: Int, removals: Int, round: Int) {
            let name = names[r]
            let own = expected.filter { $0.key.hasPrefix(name.lowercased()) && $0.value != nil }.keys.sorted().shuffled(using: &rng)
            var commands: [String] = []
            for i in 0..<adds { counter += 1; commands.append("add '\(name)-\(counter)' --id \(name.lowercased())\(round)n\(i)") }
            for id in own.prefix(edits) { counter += 1; commands.append("edit \(id) --text '\(name)-\(counter)'") }
            for id in own.dropFirst(edits).prefix(removals) { commands.append("rm \(id)") }
            let chain = commands.map { "'\(TodoProcess.binary)' \($0) > /dev/null" }.joined(separator: " && ")
            #expect(server.sh(chain, in: name).code == 0, "queueing on \(name): \(server.read(name + "/.err"))")
        }
        func operations(_ r: Int) -> [String: QueuedOp] {
            let dir = server.dir.sub(names[r]).appendingPath(".todo/operations")
            var out: [String: QueuedOp] = [:]
            for file in (try? LocalFileSystem().listDirectory(dir)) ?? [] where !file.hasPrefix(".") {
                guard let record = (try? LocalFileSystem().readFile(dir.appendingPath(file))).flatMap({ $0 }).flatMap({ try? JSONValue.parse($0) }) else { continue }
                out[file] = QueuedOp(kind: record["kind"]?.stringValue ?? "", id: record["id"]?.stringValue ?? "", text: record["item"]?["text"]?.stringValue)
            }
            return out
        }
        func rows() -> [String: (text: String?, deleted: Bool)] {
            let reply = server.http("GET", "/tables/todoitem?__includeDeleted=true&$top=1000", headers: [("ZUMO-API-VERSION", "2.0.0")])
            var out: [String: (text: String?, deleted: Bool)] = [:]
            for row in reply.json?.arrayValue ?? [] {
                let id = row["id"]?.stringValue ?? ""
                #expect(out[id.lowercased()] == nil, "the server holds \(id) twice")
                out[id.lowercased()] = (row["text"]?.stringValue, row["deleted"]?.boolValue == true)
            }
            #expect(reply.status == 200 && out.count < 1000)
            return out
        }
        /// Starts a push in every replica at once; returns the pids and their operations before.
        func startPushes() -> (pids: [pid_t], before: [[String: QueuedOp]]) {
            let before = names.indices.map(operations)
            let pids = names.indices.map { r in
                TodoProcess.start(["push"], store: server.dir.sub(names[r]).appendingPath(".todo"), output: server.dir.sub(names[r]).appendingPath(".push.out"))
            }
            return (pids, before)
        }
        func apply(_ ops: [[String: QueuedOp]]) {
            for op in ops.flatMap(\.values) { expected[op.id.lowercased()] = op.kind == "delete" ? .some(nil) : .some(op.text) }
        }

        // The first, unkilled round measures how long three pushes take together here.
        for r in names.indices { queue(r, adds: 20, edits: 0, removals: 0, round: 0) }
        let started = TodoProcess.now()
        let probe = startPushes()
        for pid in probe.pids { #expect(TodoProcess.wait(pid) == .exited(0)) }
        let together = TodoProcess.now() - started
        apply(probe.before)

        var scale = 1.0, round = 0, interrupted = 0, acknowledged = 0, unacknowledged = 0
        var figures: [String] = []
        while round < rounds || (interrupted == 0 && round < 2 * rounds) {
            round += 1
            for r in names.indices { queue(r, adds: 15, edits: 5, removals: 3, round: round) }
            let pushes = startPushes()
            usleep(UInt32(Double.random(in: 0.1...0.9, using: &rng) * together * scale * 1_000_000))
            server.killNine()
            let outcomes = pushes.pids.map { TodoProcess.wait($0) }
            for (r, outcome) in outcomes.enumerated() {
                #expect(outcome == .exited(0) || outcome == .exited(4), "\(names[r])'s push: \(String(describing: outcome)) \(server.read(names[r] + "/.push.out"))")
            }
            // Acknowledged: the push took the op off its queue, which it does only on a 2xx.
            var acked: [QueuedOp] = []
            for r in names.indices {
                let after = operations(r)
                acked += pushes.before[r].filter { after[$0.key] == nil }.map(\.value)
            }
            let total = pushes.before.reduce(0) { $0 + $1.count }
            acknowledged += acked.count
            unacknowledged += total - acked.count
            // Aim the next kill where some ops are through and some are not.
            if outcomes.contains(.exited(4)) { interrupted += 1 } else { scale /= 2 }
            if acked.isEmpty { scale *= 1.5 }
            figures.append("round \(round): \(acked.count)/\(total) acknowledged, pushes \(outcomes.map { "\($0!)" }.joined(separator: ","))")

            server.restart()
            let stored = rows()
            for op in acked {
                let row = stored[op.id.lowercased()]
                if op.kind == "delete" {
                    #expect(row == nil || row?.deleted == true, "round \(round): acknowledged delete of \(op.id) is undone after the restart")
                } else {
                    #expect(row?.deleted == false && row?.text == op.text, "round \(round): acknowledged \(op.kind) of \(op.id) (\(op.text ?? "")) is lost after the restart: \(String(describing: row))")
                }
            }
            for r in names.indices {
                let again = server.todo("push", in: names[r])
                #expect(again.code == 0, "round \(round), \(names[r]) pushes again: \(again.out)")
                #expect(operations(r).isEmpty, "round \(round), \(names[r])'s queue is empty")
                #expect(server.todo("doctor", in: names[r]).code == 0)
            }
            apply(pushes.before)
            let final = rows()
            for (id, text) in expected {
                if let text {
                    #expect(final[id]?.deleted == false && final[id]?.text == text, "round \(round): \(id) should be \(text), is \(String(describing: final[id]))")
                } else {
                    #expect(final[id] == nil || final[id]?.deleted == true, "round \(round): \(id) should be deleted")
                }
            }
            #expect(final.count == expected.count, "round \(round): \(final.count) rows on the server for \(expected.count) items")
        }
        print("server kill campaign seed \(seed): \(round) rounds, \(interrupted) with a push cut off; \(acknowledged) ops acknowledged before the kill, \(unacknowledged) not; " + figures.joined(separator: "; "))
        #expect(interrupted > 0, "the server was killed while a push was running")
        #expect(acknowledged > 0 && unacknowledged > 0, "some ops were acknowledged before the kill, some not")
    }
}
