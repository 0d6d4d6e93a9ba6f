import Dispatch
import Glibc
import PostgresClient
import Synchronization
import Testing
import TableProtocol
import TodoBasics
import TodoModel
import TodoTestSupport
@testable import TodoServer

extension PostgresRoundTripTests {
    /// A PATCH through the server is one round trip of one statement (`PostgresPatch`): the gate,
    /// the If-Match check, the merge, the stamps, the settle and the commit all run in the database.
    @Test func aPatchOverHTTPIsOneRoundTripOfOneStatement() throws {
        let node = try TableServerHarness(backend: .postgres)
        let pool = try #require(node.store as? PostgresTableStore).pool
        let version = try node.insert(#"{"id":"a","text":"one"}"#)["version"]?.stringValue ?? ""
        #expect(try node.send("PATCH", "/tables/todoitem/a", body: #"{"text":"warm"}"#).status == 200)
        for (ifMatch, text) in [("*", "two"), (nil, "three")] {
            let before = pool.idleCounters
            let reply = try node.send("PATCH", "/tables/todoitem/a", headers: ifMatch.map { [("If-Match", $0)] } ?? [],
                                      body: #"{"text":"\#(text)"}"#)
            let after = pool.idleCounters
            #expect(reply.status == 200 && reply.object["text"]?.stringValue == text, "\(reply)")
            #expect(after.roundTrips - before.roundTrips == 1, "round trips of one PATCH: \(after.roundTrips - before.roundTrips)")
            #expect(after.statements - before.statements == 1, "statements of one PATCH: \(after.statements - before.statements)")
        }
        // A precondition that fails is one round trip too, and answers with the server's row.
        let before = pool.idleCounters
        let stale = try node.send("PATCH", "/tables/todoitem/a", headers: [("If-Match", "\"\(version)\"")], body: #"{"text":"lost"}"#)
        #expect(stale.status == 412 && stale.object["text"]?.stringValue == "three", "\(stale)")
        #expect(pool.idleCounters.roundTrips - before.roundTrips == 1)
    }
}

/// What the one-statement PATCH (`PostgresPatch`) must keep of the `write` it replaces.
@Suite struct PostgresPatchTests {
    /// Preconditions: a matching If-Match or G2 body version writes; a stale one is 412 (If-Match)
    /// or 409 (body) with the server's row and its ETag; a weak tag never matches; a deleted or
    /// absent row is 404.
    @Test func preconditionsAndMissingRows() throws {
        let node = try TableServerHarness(backend: .postgres)
        let first = try node.insert(#"{"id":"a","text":"one","priority":1}"#)
        let v1 = first["version"]?.stringValue ?? ""
        let matched = try node.send("PATCH", "/tables/todoitem/a", headers: [("If-Match", "\"\(v1)\"")], body: #"{"text":"two"}"#)
        #expect(matched.status == 200 && matched.object["text"] == "two" && matched.object["priority"] == 1, "\(matched)")
        let v2 = matched.object["version"]?.stringValue ?? ""
        #expect(v2 != v1 && matched.headers["ETag"] == "\"\(v2)\"")
        let stale = try node.send("PATCH", "/tables/todoitem/a", headers: [("If-Match", "\"\(v1)\"")], body: #"{"text":"x"}"#)
        #expect(stale.status == 412 && stale.object["text"] == "two" && stale.headers["ETag"] == "\"\(v2)\"", "\(stale)")
        let weak = try node.send("PATCH", "/tables/todoitem/a", headers: [("If-Match", "W/\"\(v2)\"")], body: #"{"text":"x"}"#)
        #expect(weak.status == 412 && weak.object["text"] == "two", "\(weak)")
        let garbage = try node.send("PATCH", "/tables/todoitem/a", headers: [("If-Match", "\"nope\"")], body: #"{"text":"x"}"#)
        #expect(garbage.status == 412, "\(garbage)")
        let body409 = try node.send("PATCH", "/tables/todoitem/a", body: #"{"text":"x","version":"\#(v1)"}"#)
        #expect(body409.status == 409 && body409.object["text"] == "two", "\(body409)")
        let bodyOK = try node.send("PATCH", "/tables/todoitem/a", body: #"{"text":"three","version":"\#(v2)"}"#)
        #expect(bodyOK.status == 200 && bodyOK.object["text"] == "three", "\(bodyOK)")
        #expect(try node.send("PATCH", "/tables/todoitem/nothere", body: #"{"text":"x"}"#).status == 404)
        #expect(try node.send("DELETE", "/tables/todoitem/a").status == 200)
        #expect(try node.send("PATCH", "/tables/todoitem/a", body: #"{"text":"x"}"#).status == 404)
        let deleted = try node.send("GET", "/tables/todoitem/a?__includeDeleted=true")
        #expect(deleted.object["text"] == "three" && deleted.object["deleted"] == true, "\(deleted)")
    }

    /// A node whose schema lags behind (another node added a column since) answers a PATCH with
    /// the row's every column; a null, a typed value and a new column all land; a value of the
    /// wrong type is still refused.
    @Test func aPatchAnswersWithTheColumnsAnotherNodeAdded() throws {
        let nodes = try PostgresNodesTests.nodes(2)
        try nodes[0].insert(#"{"id":"a","text":"one"}"#)
        #expect(try nodes[1].send("PATCH", "/tables/todoitem/a", body: #"{"text":"two"}"#).status == 200)
        #expect(try nodes[0].send("PATCH", "/tables/todoitem/a", body: #"{"shade":"blue"}"#).status == 200)
        // Node 1 knows the column text, not shade: the PATCH runs in one statement, answered with both.
        let pool = try #require(nodes[1].store as? PostgresTableStore).pool
        let before = pool.idleCounters.roundTrips
        let patched = try nodes[1].send("PATCH", "/tables/todoitem/a", body: #"{"text":"three"}"#)
        #expect(patched.status == 200 && patched.object["shade"] == "blue" && patched.object["text"] == "three", "\(patched)")
        #expect(pool.idleCounters.roundTrips - before == 1)
        let cleared = try nodes[1].send("PATCH", "/tables/todoitem/a", body: #"{"shade":null}"#)
        #expect(cleared.status == 200 && cleared.object["shade"] == .null && cleared.object["text"] == "three", "\(cleared)")
        let added = try nodes[1].send("PATCH", "/tables/todoitem/a", body: #"{"size":3}"#)
        #expect(added.status == 200 && added.object["size"] == 3 && added.object["text"] == "three", "\(added)")
        let wrongType = try nodes[1].send("PATCH", "/tables/todoitem/a", body: #"{"text":5}"#)
        #expect(wrongType.status == 400, "\(wrongType)")
        let read = try nodes[0].send("GET", "/tables/todoitem/a").object
        #expect(read["text"] == "three" && read["size"] == 3 && read["shade"] == .null, "\(read)")
    }

    /// A database made before `todo_patch_many` existed (by an older node) gets it from the first
    /// node of this version that starts: only a function is added, no table changes.
    @Test func aDatabaseWithoutTheFunctionGetsItAtStart() throws {
        let database = try TestDatabase()
        try PostgresTableStore(config: database.config).close()
        let admin = try PostgresConnection.connect(database.config)
        defer { admin.close() }
        try admin.execute("DROP FUNCTION todo_patch_many")
        let node = try TableServerHarness(backend: .postgres, joining: database)
        try node.insert(#"{"id":"a","text":"one"}"#)
        #expect(try node.send("PATCH", "/tables/todoitem/a", body: #"{"text":"two"}"#).status == 200)
        let pool = try #require(node.store as? PostgresTableStore).pool
        let before = pool.idleCounters.roundTrips
        #expect(try node.send("PATCH", "/tables/todoitem/a", body: #"{"text":"three"}"#).object["text"] == "three")
        #expect(pool.idleCounters.roundTrips - before == 1)
    }

    /// `--max-row-size` holds: a PATCH that would outgrow it is 413 and writes nothing.
    @Test func aPatchPastTheRowSizeIsRefused() throws {
        var limits = StorageLimits()
        limits.maxRowBytes = 200
        let node = try TableServerHarness(backend: .postgres, limits: limits)
        try node.insert(#"{"id":"a","text":"short"}"#)
        #expect(try node.send("PATCH", "/tables/todoitem/a", body: #"{"text":"still short"}"#).status == 200)
        let big = String(repeating: "x", count: 300)
        let refused = try node.send("PATCH", "/tables/todoitem/a", body: #"{"text":"\#(big)"}"#)
        #expect(refused.status == 413, "\(refused)")
        #expect(try node.send("GET", "/tables/todoitem/a").object["text"] == "still short")
    }

    /// The stamp is the database's clock under the gate, above the table's last updatedAt as
    /// migrated, and the PATCH is in the very next pull through another node.
    @Test func stampsStayAboveAMigratedUpdatedAtAndTheNextPullHasThem() throws {
        let nodes = try PostgresNodesTests.nodes(2)
        try nodes[0].insert(#"{"id":"a","text":"one"}"#)
        #expect(try nodes[0].send("PATCH", "/tables/todoitem/a", body: #"{"text":"warm"}"#).status == 200)
        let admin = try PostgresConnection.connect(try #require(nodes[0].database).config)
        defer { admin.close() }
        let ahead = try admin.query("SELECT todo_clock_ms() + 300")[0].decode(0, as: Int64.self)
        try admin.execute("UPDATE todo_tables SET last_updated_at = $1 WHERE key = 'todoitem'", [.int(ahead)])
        let patched = try nodes[0].send("PATCH", "/tables/todoitem/a", body: #"{"text":"two"}"#)
        let stamp = try #require(WireInstant(wireText: patched.object["updatedAt"]?.stringValue ?? "")).ticks / WireInstant.ticksPerMillisecond
        #expect(stamp > ahead, "updatedAt \(stamp) not above \(ahead)")
        #expect(try admin.query("SELECT todo_clock_ms()")[0].decode(0, as: Int64.self) > stamp, "answered before the clock passed its stamp")
        var missing: [Int] = []
        for i in 0..<100 {
            let row = try nodes[0].send("PATCH", "/tables/todoitem/a", body: #"{"text":"n\#(i)"}"#).object
            let filter = PercentEncoding.encode("updatedAt ge datetimeoffset'\(row["updatedAt"]?.stringValue ?? "")'")
            let page = try nodes[1].send("GET", "/tables/todoitem?$filter=\(filter)&$orderby=updatedAt%20asc,id%20asc&$top=50").array
            if !page.contains(where: { $0["text"]?.stringValue == "n\(i)" }) { missing.append(i) }
        }
        #expect(missing.isEmpty, "not in the next pull: \(missing.prefix(10))")
    }
}

/// A node's PATCHes to one table that arrive while others are in the database share one statement
/// (`PostgresPatchBatches`): one round trip, one transaction and one commit for all of them.
@Suite struct PostgresPatchBatchTests {
    /// A PATCH stamps above every write answered before it, even in the same millisecond (protocol
    /// §4.6.1, checklist 133): one after the other, on two rows, each updatedAt above the last.
    @Test func sequentialPatchesStampStrictlyIncreasing() throws {
        let node = try TableServerHarness(backend: .postgres)
        for id in ["a", "b"] { try node.insert(#"{"id":"\#(id)","text":"zero"}"#) }
        var last = ""
        var notAbove: [String] = []
        for i in 0..<60 {
            let row = try node.send("PATCH", "/tables/todoitem/\(i % 2 == 0 ? "a" : "b")", body: #"{"text":"t\#(i)"}"#).object
            let stamp = row["updatedAt"]?.stringValue ?? ""
            if stamp <= last { notAbove.append("\(i): \(stamp)") }
            last = stamp
        }
        #expect(notAbove.isEmpty, "PATCHes not stamped above the one before: \(notAbove)")
    }

    /// Two PATCHes held in the database by another session's row locks fill the batches that may
    /// run at once; the next eight wait, then run together as one statement, each answered as if
    /// alone and in its order: two PATCHes of one row apply one after the other, so the second's
    /// If-Match (the version before the first) fails with 412 and the first's row.
    @Test func patchesThatArriveWhileOthersRunShareOneStatement() throws {
        let node = try TableServerHarness(backend: .postgres)
        let store = try #require(node.store as? PostgresTableStore)
        var versions: [String: String] = [:]
        for i in 0..<9 { versions["r\(i)"] = try node.insert(#"{"id":"r\#(i)","text":"zero"}"#)["version"]?.stringValue }
        #expect(try node.send("PATCH", "/tables/todoitem/r8", body: #"{"text":"warm"}"#).status == 200)
        let holder = try PostgresConnection.connect(store.config)
        defer { holder.close() }
        try holder.execute("BEGIN")
        _ = try holder.query("SELECT 1 FROM todo_rows WHERE id_key IN ('r0', 'r1') FOR UPDATE")
        let before = store.pool.idleCounters
        let replies = Mutex<[Int: (status: Int, text: String?)]>([:])  // by PATCH number
        // Sessions of this test's database waiting for a lock (other tests share the cluster), seen
        // from outside the holder's transaction (which would keep one snapshot of the view).
        let observer = try PostgresConnection.connect(store.config)
        defer { observer.close() }
        let waitingLocks: @Sendable () -> Int64 = {
            (try? observer.query("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")[0]
                .decode(0, as: Int64.self)) ?? -1
        }
        // PATCH n: its row, its text, its If-Match. Each runs on a thread of its own once `launched`
        // passes n (Dispatch would run two at a time here, and these wait on purpose).
        let r2 = versions["r2"] ?? ""
        let patches = [("r0", "one", "*"), ("r1", "one", "*"), ("r2", "a", "*"), ("r2", "b", "\"\(r2)\"")]
            + (3..<9).map { ("r\($0)", "one", "*") }
        let launched = Mutex(0)
        RealThreads.run(patches.count + 1) { n in
            guard n == patches.count else {
                while launched.withLock({ $0 }) <= n { usleep(1_000) }
                let (id, text, ifMatch) = patches[n]
                // Held up on purpose until all ten are in: a machine busy with other tests may take long.
                if let reply = try? node.send("PATCH", "/tables/todoitem/\(id)", headers: [("If-Match", ifMatch)], body: #"{"text":"\#(text)"}"#,
                                              receiveTimeout: .seconds(300)) {
                    replies.withLock { $0[n] = (reply.status, reply.object["text"]?.stringValue) }
                }
                return
            }
            // The conductor: launches the PATCHes in order, each once the one before is where it should be.
            let steps: [(launch: Int, what: String, done: @Sendable () -> Bool)] = [
                (1, "the first batch to wait for its row", { waitingLocks() == 1 }),
                (2, "the second batch to wait for its row", { waitingLocks() == 2 }),
                (3, "a PATCH waiting for a batch", { store.patchBatches.waiting == 1 }),
                (4, "two PATCHes waiting", { store.patchBatches.waiting == 2 }),
                (10, "eight PATCHes waiting", { store.patchBatches.waiting == 8 }),
            ]
            for step in steps {
                launched.withLock { $0 = step.launch }
                let deadline = Deadline(secondsFromNow: 240)
                while !step.done() {
                    if deadline.remainingMilliseconds == 0 {
                        Issue.record("timed out waiting: \(step.what)")
                        launched.withLock { $0 = patches.count }
                        break
                    }
                    usleep(2_000)
                }
            }
            _ = try? holder.execute("COMMIT")
        }
        let after = store.pool.idleCounters
        let answered = replies.withLock { $0 }
        #expect(answered.count == 10)
        for n in [0, 1, 2] + Array(4..<10) { #expect(answered[n]?.status == 200, "PATCH \(n): \(String(describing: answered[n]))") }
        #expect(answered[3]?.status == 412 && answered[3]?.text == "a", "\(String(describing: answered[3]))")
        #expect(after.statements - before.statements == 3, "statements of 10 PATCHes: \(after.statements - before.statements)")
        #expect(after.roundTrips - before.roundTrips == 3)
        for i in 3..<9 { #expect(try node.send("GET", "/tables/todoitem/r\(i)").object["text"]?.stringValue == "one") }
    }
}
