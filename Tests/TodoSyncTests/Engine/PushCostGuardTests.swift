import Testing
import TodoBasics
import TodoCLI
import TodoSync
import TodoTestSupport

/// Issue 16 item 7: what a push of inserts costs the client per op, counted, never timed: the
/// file-system calls by kind, the whole paths the kernel walks for them, and the parses of an
/// answer's headers. A push of 10,000 spends its client CPU there; each bound is what one op
/// needs (its op file read and removed, its item file read for the hand-edit check, written with
/// the server's copy, and checked for existence by the commit's numbering).
@Suite struct PushCostGuardTests {
    @Test(arguments: [60])
    func pushOfInserts(ops n: Int) throws {
        let world = try SyncWorld()
        let replica = world.replica("A")
        for i in 0..<n { replica.expect(0, "add", "item \(i)", "--id", "i\(i)") }
        let fs = CountingFileSystem()
        let counter = ReplyCounter()
        let pusher = CLIHarness(directory: replica.directory, environment: replica.environment, fs: fs,
                                transport: world.transport, replyCounter: counter)
        world.resetLog()
        let push = pusher.run("push")
        #expect(push.code == 0, "\(push)")
        #expect(world.rows().count == n)
        #expect(replica.operations.isEmpty)
        let answers = world.requests().count

        let ops = "/.todo/operations/", items = "/items/"
        func perOp(_ kind: CountingFileSystem.Kind, _ part: String) -> String { "\(fs.count(kind, containing: part)) for \(n) ops" }
        // Each op file is read once and removed once, never written (its in-flight marker stays
        // in the journal); each item file is read once, written once, and checked once.
        #expect(fs.count(.read, containing: ops) == n, "reads of op files: \(perOp(.read, ops))")
        #expect(fs.count(.remove, containing: ops) == n, "removals of op files: \(perOp(.remove, ops))")
        #expect(fs.count(.write, containing: ops) == 0, "writes of op files: \(perOp(.write, ops))")
        #expect(fs.count(.read, containing: items) == n, "reads of item files: \(perOp(.read, items))")
        #expect(fs.count(.write, containing: items) == n, "writes of item files: \(perOp(.write, items))")
        #expect(fs.count(.exists, containing: items) <= n, "existence checks of item files: \(perOp(.exists, items))")
        #expect(fs.count(.stat, containing: items) + fs.count(.stat, containing: ops) <= 2,
                "stats of op and item files: \(fs.count(.stat, containing: items) + fs.count(.stat, containing: ops))")
        // Every one of those calls names the file in a folder opened once: no per-op walk of the
        // whole path from the root.
        let walks = fs.pathWalks(containing: ops) + fs.pathWalks(containing: items)
        #expect(walks == 0, "whole-path lookups of op and item files: \(walks) for \(n) ops")
        #expect(fs.count(.openFolder) <= 80, "folders opened: \(fs.count(.openFolder)) for \(n) ops")
        // One parse of each answer's headers.
        #expect(counter.headerParses == answers, "header parses: \(counter.headerParses) for \(answers) answers")
    }
}
