import Foundation
import Testing
import TableProtocol
import TodoBasics
import TodoModel
import TodoStore
@testable import TodoSync
import TodoTestSupport

/// Issue 21: a push reads the queue a window at a time, in sequence order, so that its memory
/// stays flat in the queue's length (it read the whole queue first: 2,727 MB at a million
/// pending inserts). Counted through the report's figure of the most operations the push held
/// at once, never timed; and the order of sync.md §4 kept across windows.
@Suite struct PushWindowGuardTests {
    /// `n` pending inserts as `todo add` leaves them (item file, op file, next sequence), written
    /// directly: thousands of `add` runs would take minutes.
    static func queueInserts(_ replica: CLIHarness, _ n: Int) throws {
        let fs = LocalFileSystem()
        let dottodo = replica.directory.appendingPath(".todo")
        for i in 0..<n {
            let id = String(format: "w%05d", i)
            let item: JSONValue = ["complete": false, "id": .string(id), "text": .string("item \(i)")]
            try fs.writeFile(dottodo.appendingPath("tables/todoitem/items/\(id).json"), item.canonicalBytes(), sync: false)
            let op: JSONValue = ["attempted": false, "base": .null, "format": 1, "id": .string(id), "item": item,
                                 "kind": "insert", "queuedAt": "2024-05-01T09:00:00.000Z", "sequence": .number(Double(i + 1)),
                                 "table": "todoitem"]
            try fs.writeFile(dottodo.appendingPath(String(format: "operations/%010d.insert.todoitem.\(id).json", i + 1)),
                             op.canonicalBytes(), sync: false)
        }
        let statePath = dottodo.appendingPath("state.json")
        let bytes = try #require(try fs.readFile(statePath))
        var state = try #require(try JSONValue.parse(bytes).objectValue)
        state["nextSequence"] = .number(Double(n + 1))
        try fs.writeFile(statePath, JSONValue.object(state).canonicalBytes(), sync: false)
    }

    @Test("a push of 5,000 inserts holds a window of operations, not the queue") func holdsAWindow() throws {
        let n = 5_000, window = 200, batch = 50
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        try Self.queueInserts(a, n)
        let report = try PushInProcessTests.push(a, world, options: PushEngine.Options(batchSize: batch, window: window, wholeQueueUpTo: window))
        #expect(report.stop == nil && report.handEdits.isEmpty)
        #expect(report.succeeded == n && report.sent[.insert] == n)
        #expect(world.row("w00000") != nil && world.row(String(format: "w%05d", n - 1)) != nil)
        #expect(a.operations.isEmpty)
        // Two windows at most (the one being sent and the next, read when the first runs low),
        // and a batch.
        #expect(report.mostOperationsHeld > 0 && report.mostOperationsHeld <= 2 * window + batch,
                "operations held at once: \(report.mostOperationsHeld) for \(n) queued, window \(window)")
    }

    /// The window is what a push's memory scales with (issue 21: a push of 100,000 peaked at
    /// 72 MB with windows of 10,000 ops, 45 MB with 2,000, for the same CPU). So a queue longer
    /// than the whole-queue limit is read in the default windows, not in windows of that limit.
    @Test("a queue over the whole-queue limit is read in windows of 2,000 ops by default: 2 windows and a batch at most") func defaultWindowIsSmall() throws {
        let n = 5_000
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        try Self.queueInserts(a, n)
        let options = PushEngine.Options(wholeQueueUpTo: 3_000)
        let report = try PushInProcessTests.push(a, world, options: options)
        #expect(report.succeeded == n && a.operations.isEmpty)
        #expect(options.window == 2_000)
        #expect(report.mostOperationsHeld > 0 && report.mostOperationsHeld <= 2 * 2_000 + options.batchSize,
                "operations held at once: \(report.mostOperationsHeld) for \(n) queued, window \(options.window)")
    }

    /// The usual big push (up to 10,000 by default) reads each op file once, with no sort: the
    /// queue is one window, held whole.
    @Test("a queue within the whole-queue limit is read as one window") func shortQueueIsOneWindow() throws {
        let n = 500
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        try Self.queueInserts(a, n)
        let report = try PushInProcessTests.push(a, world, options: PushEngine.Options(batchSize: 50, window: 100, wholeQueueUpTo: 1_000))
        #expect(report.succeeded == n && a.operations.isEmpty)
        #expect(report.mostOperationsHeld == n, "operations held at once: \(report.mostOperationsHeld) for \(n) queued")
        #expect(PushEngine.Options().wholeQueueUpTo == 10_000 && PushEngine.Options().window == 2_000)
    }

    @Test("an item's later ops far past its first one's window: replay check, rebase, then the update") func opsAcrossWindows() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A", environment: ["TODO_PUSH_BATCH": "10", "TODO_PUSH_WINDOW": "30"])
        for i in 0..<100 { a.expect(0, "add", "item \(i)", "--id", "i\(i)") }
        a.sealOperations()  // as a push killed after its markers: the edits queue second ops
        for i in 0..<10 { a.expect(0, "edit", "i\(i)", "--text", "edited \(i)") }
        #expect(a.operations.count == 110)
        a.expect(0, "push")
        #expect(a.operations.isEmpty)
        #expect(a.conflicts.isEmpty)
        #expect(world.rows().count == 100)
        for i in 0..<10 {
            #expect(world.row("i\(i)")?["text"]?.stringValue == "edited \(i)")
            #expect(a.item("i\(i)")?["ms_version"] == world.row("i\(i)")?["version"])
        }
        // Each update went with the version its insert's answer gave (the base rebased on S).
        let patches = world.requests().filter { $0.method == "PATCH" }
        #expect(patches.count == 10)
        #expect(patches.allSatisfy { $0.headers["If-Match"] != nil }, "\(patches.map(\.headers))")
    }

    @Test("a hand edit in the queue's last window: nothing is sent") func handEditInALaterWindow() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A", environment: ["TODO_PUSH_BATCH": "10", "TODO_PUSH_WINDOW": "30"])
        for i in 0..<100 { a.expect(0, "add", "item \(i)", "--id", "i\(i)") }
        let fs = LocalFileSystem()
        let path = a.directory.appendingPath(".todo/tables/todoitem/items/i95.json")
        let bytes = try #require(try fs.readFile(path))
        var file = try #require(try JSONValue.parse(bytes).objectValue)
        file["text"] = "changed by hand"
        try fs.writeFile(path, JSONValue.object(file).canonicalBytes(), sync: false)
        let push = a.run("push")
        #expect(push.code != 0 && push.err.contains("nothing was pushed"), "\(push)")
        #expect(world.writes().isEmpty)
        #expect(a.operations.count == 100)
    }

    @Test("a text report keeps 50 lines of ops answered ok and counts the others") func okLinesCounted() throws {
        let n = 300
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        try Self.queueInserts(a, n)
        let report = try PushInProcessTests.push(a, world, options: PushEngine.Options(batchSize: 50, okLinesKept: 50))
        #expect(report.succeeded == n)
        #expect(report.lines.count == 50 && report.okNotListed == n - 50, "lines held: \(report.lines.count), counted: \(report.okNotListed)")

        // The text of a push of more than 50 ok ones counts them.
        let c = world.replica("C")
        for i in 0..<60 { c.expect(0, "add", "item \(i)", "--id", "c\(i)") }
        let push = c.expect(0, "push")
        #expect(push.out.contains("  (60 more ok)\n") && push.out.contains("60 ok, 0 left in the queue"), "\(push)")
        // JSON lists every op, also through sync.
        for i in 60..<120 { c.expect(0, "add", "item \(i)", "--id", "c\(i)") }
        let sync = c.expect(0, "sync", "--json")
        #expect(try JSONValue.parse(Array(sync.out.utf8))["push"]?["operations"]?.arrayValue?.count == 60, "\(sync)")
    }
}
