import Dispatch
import PostgresClient
import Synchronization
import Testing
import TableProtocol
import TodoBasics
import TodoModel
import TodoTestSupport
@testable import TodoServer

/// Writes to one table run in parallel on PostgreSQL (`PostgresWriteGate`); these races must still
/// end as they would one at a time.
@Suite struct PostgresWriteRaceTests {
    /// 32 inserts of one id through three nodes: one 201, 31 409s, and the row is the winner's.
    @Test func oneInsertOfAnIDWins() throws {
        let nodes = try PostgresNodesTests.nodes()
        let statuses = Mutex<[Int: Int]>([:])
        let winners = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 32) { i in
            let reply = try? nodes[i % nodes.count].send("POST", "/tables/todoitem", body: #"{"id":"same","text":"w\#(i)"}"#)
            let status = reply?.status ?? 0
            statuses.withLock { $0[status, default: 0] += 1 }
            if status == 201 { winners.withLock { $0.append(reply?.object["text"]?.stringValue ?? "") } }
        }
        #expect(statuses.withLock { $0 } == [201: 1, 409: 31])
        let stored = try nodes[1].send("GET", "/tables/todoitem/same").object["text"]?.stringValue
        #expect(winners.withLock { $0 } == [stored ?? "none"])
    }

    /// A new column set by many writers at once with two types: it gets one type, every row that
    /// was accepted holds a value of it, and the others were refused with 400.
    @Test func aNewColumnGetsOneType() throws {
        let nodes = try PostgresNodesTests.nodes()
        _ = try nodes[0].insert(#"{"id":"seed","text":"t"}"#)
        let statuses = Mutex<[Int: Int]>([:])
        DispatchQueue.concurrentPerform(iterations: 24) { i in
            let value = i % 2 == 0 ? "\(i)" : "\"s\(i)\""
            let status = (try? nodes[i % nodes.count].send("POST", "/tables/todoitem", body: #"{"id":"r\#(i)","x":\#(value)}"#).status) ?? 0
            statuses.withLock { $0[status, default: 0] += 1 }
        }
        let counts = statuses.withLock { $0 }
        #expect(Set(counts.keys).isSubset(of: [201, 400]) && counts[201, default: 0] >= 12, "\(counts)")
        let rows = try nodes[2].send("GET", "/tables/todoitem?$filter=id%20ne%20'seed'&$top=100").array
        let kinds = Set(rows.map { row -> String in
            switch row["x"] { case .number?: return "number"; case .string?: return "string"; default: return "other" } })
        #expect(rows.count == counts[201, default: 0] && kinds.count == 1, "\(kinds), \(rows.count) rows")
    }

    /// A row answered as written is in the very next pull, through another node, even in the same
    /// millisecond (the write settles before it commits).
    @Test func aPullRightAfterAWriteHasIt() throws {
        let nodes = try PostgresNodesTests.nodes(2)
        var missing: [Int] = []
        for i in 0..<150 {
            let row = try nodes[0].insert(#"{"id":"n\#(i)","text":"t"}"#)
            let since = row["updatedAt"]?.stringValue ?? ""
            let filter = PercentEncoding.encode("updatedAt ge datetimeoffset'\(since)'")
            let page = try nodes[1].send("GET", "/tables/todoitem?$filter=\(filter)&$orderby=updatedAt%20asc,id%20asc&$top=50").array
            if !page.contains(where: { $0["id"]?.stringValue == "n\(i)" }) { missing.append(i) }
        }
        #expect(missing.isEmpty, "not in the next pull: \(missing.prefix(10))")
    }
}

/// The settle step on its own: a write whose stamps run ahead of the database's clock (many stamps
/// in one write: each is 1 ms above the last) returns only once the clock has reached the last
/// (so stamps never run ahead of the clock, and a query waits at most for the rest of its millisecond).
@Suite struct PostgresSettleTests {
    @Test func aWriteReturnsOnceTheClockReachedItsLastStamp() throws {
        let database = try TestDatabase()
        let store = try PostgresTableStore(config: database.config)
        defer { store.close() }
        try store.createTable("t", softDelete: true, idType: .string, columns: [:])
        let last = try store.write("t") { w -> Int64 in
            var stamp = w.nextStamp()
            for _ in 0..<600 { stamp = w.nextStamp() }
            w.put(StoredRow(id: "a", columns: [:], createdAt: stamp.updatedAt, updatedAt: stamp.updatedAt, version: stamp.version))
            return stamp.updatedAt
        }
        let admin = try PostgresConnection.connect(database.config)
        defer { admin.close() }
        let now = try admin.query("SELECT todo_clock_ms()")[0].decode(0, as: Int64.self)
        #expect(now >= last, "the write returned at \(now), before the clock reached its stamp \(last)")
    }

    /// A table whose last updatedAt lies ahead of the database's clock (rows migrated from a server
    /// whose clock ran ahead): a new write is stamped above it, never below rows already pulled.
    @Test func stampsStayAboveAMigratedUpdatedAt() throws {
        let database = try TestDatabase()
        let store = try PostgresTableStore(config: database.config)
        defer { store.close() }
        try store.createTable("t", softDelete: true, idType: .string, columns: [:])
        let admin = try PostgresConnection.connect(database.config)
        defer { admin.close() }
        let ahead = try admin.query("SELECT todo_clock_ms() + 300")[0].decode(0, as: Int64.self)
        try admin.execute("UPDATE todo_tables SET last_updated_at = $1 WHERE key = 't'", [.int(ahead)])
        let stamp = try store.write("t") { w -> Int64 in
            let stamp = w.nextStamp()
            w.put(StoredRow(id: "a", columns: [:], createdAt: stamp.updatedAt, updatedAt: stamp.updatedAt, version: stamp.version))
            return stamp.updatedAt
        }
        #expect(stamp > ahead)
    }
}

/// Values PostgreSQL cannot hold are refused as bad input, not as an outage.
@Suite struct PostgresValueTests {
    @Test func aStringWithANulCharacterIs400AndTheNodeGoesOn() throws {
        let node = try TableServerHarness(backend: .postgres)
        let refused = try node.send("POST", "/tables/todoitem", body: #"{"id":"a","text":"x\u0000y"}"#)
        #expect(refused.status == 400)
        #expect(refused.object["error"]?.stringValue == "The PostgreSQL store cannot hold the character U+0000 in a string "
            + "(column 'text'): remove it, or use the embedded store.")
        let patched = try node.send("POST", "/tables/todoitem", body: #"{"id":"b","text":"fine"}"#)
        #expect(patched.status == 201)
        _ = try node.insert(#"{"id":"c","text":"t"}"#)
        #expect(try node.send("PATCH", "/tables/todoitem/c", body: #"{"text":"\u0000"}"#).status == 400)
        #expect(try node.send("GET", "/tables/todoitem/c").object["text"]?.stringValue == "t")
        let filtered = try node.send("GET", "/tables/todoitem?$filter=text%20eq%20'x%00y'")
        #expect(filtered.status == 200 && filtered.array.isEmpty, "\(filtered.status) \(filtered.object)")
        let others = try node.send("GET", "/tables/todoitem?$filter=text%20ne%20'x%00y'")
        #expect(others.status == 200 && others.array.count == 2, "\(others.status) \(others.object)")
    }
}


/// A write's round trips to PostgreSQL (issue 18 item 6: durable PATCH throughput): its BEGIN, the
/// gate and the row it reads first go in one, and what it writes goes with its COMMIT, since
/// nothing reads the result of an UPDATE or INSERT but its error (which then fails the COMMIT, and
/// nothing commits).
@Suite struct PostgresRoundTripTests {
    @Test func aPatchTakesTwoRoundTrips() throws {
        let database = try TestDatabase()
        let store = try PostgresTableStore(config: database.config, connections: 1)
        defer { store.close() }
        try store.createTable("t", softDelete: true, idType: .string, columns: [:])
        func patch(_ id: String, text: String) throws {
            try store.write("t", readingFirst: id) { w in
                let stamp = w.nextStamp()
                let old = w.row(id: id)
                w.put(StoredRow(id: id, columns: ["text": .string(text)], createdAt: old?.createdAt ?? stamp.updatedAt,
                                updatedAt: stamp.updatedAt, version: stamp.version))
            }
        }
        try patch("a", text: "one")
        let before = try store.pool.withConnection { $0.roundTrips }
        try patch("a", text: "two")
        let trips = try store.pool.withConnection { $0.roundTrips } - before
        #expect(trips == 2, "round trips of one PATCH: \(trips)")
        #expect(try store.readRow("t", id: "a")?.row?.columns["text"] == .string("two"))
    }

    /// Each statement costs the server a bind and a run even in a shared round trip: a PATCH runs
    /// BEGIN, the gate with its row read and locked (one statement), its UPDATE, the settle, COMMIT.
    @Test func aPatchRunsFiveStatements() throws {
        let database = try TestDatabase()
        let store = try PostgresTableStore(config: database.config, connections: 1)
        defer { store.close() }
        try store.createTable("t", softDelete: true, idType: .string, columns: ["text": .string])
        func patch(_ text: String) throws {
            try store.write("t", readingFirst: "a") { w in
                let stamp = w.nextStamp()
                let old = w.row(id: "a")
                w.put(StoredRow(id: "a", columns: ["text": .string(text)], createdAt: old?.createdAt ?? stamp.updatedAt,
                                updatedAt: stamp.updatedAt, version: stamp.version))
            }
        }
        try patch("one")
        let before = try store.pool.withConnection { $0.statementsSent }
        try patch("two")
        let statements = try store.pool.withConnection { $0.statementsSent } - before
        #expect(statements == 5, "statements of one PATCH: \(statements)")
        #expect(try store.readRow("t", id: "a")?.row?.columns["text"] == .string("two"))
    }

    /// The losing insert of an id fails at its COMMIT now (unique violation), runs again, and
    /// then sees the winner's row: still exactly one row and one winner.
    @Test func aLostInsertFailsAtCommitAndRunsAgain() throws {
        let database = try TestDatabase()
        let first = try PostgresTableStore(config: database.config, connections: 1)
        // Only before the first attempt's COMMIT: the second attempt holds the row that first would lock.
        let once = Atomic(false)
        let second = try PostgresTableStore(config: database.config, connections: 1,
                                            beforeCommit: { if !once.exchange(true, ordering: .relaxed) { _ = try? first.write("t") { w in
                                                let stamp = w.nextStamp()
                                                if w.row(id: "x") == nil {
                                                    w.put(StoredRow(id: "x", columns: ["text": .string("first")], createdAt: stamp.updatedAt,
                                                                    updatedAt: stamp.updatedAt, version: stamp.version))
                                                }
                                            } } })
        defer { first.close(); second.close() }
        // The column exists: neither write locks the table's row (which would make them wait for each other).
        try first.createTable("t", softDelete: true, idType: .string, columns: ["text": .string])
        let outcome = try second.write("t") { w -> String in
            let stamp = w.nextStamp()
            if let found = w.row(id: "x") { return "found \(found.columns["text"]?.stringValue ?? "")" }
            w.put(StoredRow(id: "x", columns: ["text": .string("second")], createdAt: stamp.updatedAt, updatedAt: stamp.updatedAt, version: stamp.version))
            return "inserted"
        }
        #expect(outcome == "found first")
        #expect(try first.readRow("t", id: "x")?.row?.columns["text"] == .string("first"))
    }
}
