import Testing
import TableProtocol
import TodoBasics
import TodoModel
@testable import TodoServer

/// Issue 17 item 4: every limit answers a clear 4xx/507 that changes nothing, and the server goes on
/// serving: reads, the writes that fit, and the writes that free room. Messages are checked whole.
@Suite struct StorageLimitTests {
    static func limits(_ change: (inout StorageLimits) -> Void) -> StorageLimits {
        var limits = StorageLimits()
        change(&limits)
        return limits
    }

    @Test(arguments: Backend.allCases) func tablesBeyondMaxTablesAreNotCreated(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend, limits: Self.limits { $0.maxTables = 3 }) { $0.dynamicTables = true }
        #expect(try h.send("POST", "/tables/one", body: #"{"id":"a"}"#).status == 201)
        #expect(try h.send("POST", "/tables/two", body: #"{"id":"a"}"#).status == 201)
        let refused = try h.send("POST", "/tables/three", body: #"{"id":"a"}"#)
        #expect(refused.status == 507)
        #expect(refused.object["error"] == .string(
            "The server holds 3 tables, the most it allows (--max-tables 3), so the table 'three' was not created "
                + "and nothing was written; use an existing table, or ask the server's operator to raise --max-tables."))
        #expect(try h.send("GET", "/tables/three").status == 404)
        #expect(try h.store.schema("three") == nil && h.store.schema("one") != nil && h.store.schema("two") != nil)
        // The tables there are keep serving.
        #expect(try h.send("POST", "/tables/one", body: #"{"id":"b"}"#).status == 201)
        #expect(try h.send("GET", "/tables/two/a").status == 200)
    }

    @Test(arguments: Backend.allCases) func columnsBeyondMaxColumnsAre400(backend: Backend) throws {
        // todoitem has the checklist's four columns: text, complete, priority, note.
        let h = try TableServerHarness(backend: backend) { $0.maxColumns = 5 }
        #expect(try h.send("POST", "/tables/todoitem", body: #"{"id":"a","text":"t","extra":1}"#).status == 201)
        let refused = try h.send("POST", "/tables/todoitem", body: #"{"id":"b","more":1,"most":2}"#)
        #expect(refused.status == 400)
        #expect(refused.object["error"] == .string(
            "The table 'todoitem' has 5 columns and this write adds 2, more than the 5 this server allows in one "
                + "table (--max-columns): nothing was written. Use the existing columns (more, most are new), or ask "
                + "the server's operator to raise --max-columns."))
        #expect(try h.send("GET", "/tables/todoitem/b").status == 404)
        #expect(try h.send("PATCH", "/tables/todoitem/a", body: #"{"more":1}"#).status == 400)
        #expect(try h.send("PATCH", "/tables/todoitem/a", body: #"{"extra":2,"text":"u"}"#).status == 200)
    }

    @Test func theDefaultColumnLimitIsTheProtocols1024() throws {
        let h = try TableServerHarness { $0.dynamicTables = true }
        for batch in 0..<8 {  // 8 inserts of 128 new columns: 1,024 columns
            let members = (0..<128).map { "\"c\(batch)_\($0)\":1" }.joined(separator: ",")
            #expect(try h.send("POST", "/tables/wide", body: "{\"id\":\"r\(batch)\",\(members)}").status == 201)
        }
        let refused = try h.send("POST", "/tables/wide", body: #"{"id":"x","one_more":1}"#)
        #expect(refused.status == 400 && refused.text.contains("more than the 1024 this server allows"), "\(refused)")
    }

    @Test(arguments: Backend.allCases) func aRowBeyondMaxRowSizeIs413AndChangesNothing(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend, limits: Self.limits { $0.maxRowBytes = 100 })
        let fits = String(repeating: "x", count: 60)
        #expect(try h.send("POST", "/tables/todoitem", body: #"{"id":"a","text":"\#(fits)"}"#).status == 201)
        let big = try h.send("POST", "/tables/todoitem", body: #"{"id":"b","text":"\#(fits + fits)"}"#)
        #expect(big.status == 413)
        #expect(big.object["error"] == .string(
            "The row 'b' would hold 125 bytes, more than the 100 bytes this server allows in one row (--max-row-size), "
                + "so nothing was written; store less in it, or split it."))
        #expect(try h.send("GET", "/tables/todoitem/b").status == 404)
        // An update that makes a row too large is refused too; one that keeps it within is not.
        let grow = try h.send("PATCH", "/tables/todoitem/a", body: #"{"note":"\#(fits)"}"#)
        #expect(grow.status == 413)
        #expect(try h.send("GET", "/tables/todoitem/a").object["note"] == .null)
        #expect(try h.send("PATCH", "/tables/todoitem/a", body: #"{"note":"short"}"#).status == 200)
    }

    @Test func aTableBeyondMaxRowsPerTableIs507ForInsertsOnly() throws {
        let h = try TableServerHarness(limits: Self.limits { $0.maxRowsPerTable = 3 }) { $0.dynamicTables = true }
        for id in ["a", "b", "c"] { #expect(try h.send("POST", "/tables/todoitem", body: #"{"id":"\#(id)"}"#).status == 201) }
        #expect(try h.send("DELETE", "/tables/todoitem/c").status == 200)  // soft: still held
        let refused = try h.send("POST", "/tables/todoitem", body: #"{"id":"d"}"#)
        #expect(refused.status == 507)
        #expect(refused.object["error"] == .string(
            "The table 'todoitem' holds 3 rows (deleted ones included), the most this server allows in one table "
                + "(--max-rows-per-table 3), so nothing was written; ask the server's operator to raise --max-rows-per-table."))
        // Updates, deletes and undeletes of the rows there go on; other tables are not affected.
        #expect(try h.send("PATCH", "/tables/todoitem/a", body: #"{"text":"t"}"#).status == 200)
        #expect(try h.send("POST", "/tables/todoitem/c").status == 201)
        #expect(try h.send("POST", "/tables/other", body: #"{"id":"d"}"#).status == 201)
        #expect(try h.send("GET", "/tables/todoitem?$inlinecount=allpages").status == 200)
    }

    @Test func theMemoryBudgetIs507AndFreedRoomCanBeUsedAgain() throws {
        let text = String(repeating: "m", count: 1_000)
        let h = try TableServerHarness(limits: Self.limits { $0.memoryBudget = 8 << 10 }) { $0.dynamicTables = true }
        var stored = 0
        var refused: TableServerHarness.Reply?
        for n in 0..<20 {
            let reply = try h.send("POST", "/tables/todoitem", body: #"{"id":"r\#(n)","text":"\#(text)"}"#)
            if reply.status == 201 { stored += 1 } else { refused = reply; break }
        }
        #expect((5...7).contains(stored), "8 KiB holds about 5 rows of 1.5 KiB")
        #expect(refused?.status == 507)
        let message = refused?.object["error"]?.stringValue ?? ""
        #expect(message.hasPrefix("The server's memory for rows is used up: its rows take about "), "\(message)")
        #expect(message.hasSuffix(" of the 8 KiB it allows (--max-memory), and this write needs 1.5 KiB more, so nothing "
            + "was written; delete rows, or ask the server's operator to raise --max-memory."), "\(message)")
        // Neither a new table nor a new row fits; reads go on.
        #expect(try h.send("POST", "/tables/fresh", body: #"{"id":"x","text":"\#(text)"}"#).status == 507)
        #expect(try h.send("GET", "/tables/fresh").status == 404)
        #expect(try h.send("GET", "/tables/todoitem").array.count == stored)
        // Shrinking a row frees room, which the next insert can use.
        #expect(try h.send("PATCH", "/tables/todoitem/r0", body: #"{"text":"short"}"#).status == 200)
        #expect(try h.send("POST", "/tables/todoitem", body: #"{"id":"again","text":"\#(text)"}"#).status == 201)
    }

    @Test func dataAboveLoweredLimitsIsServedAfterARestartAndCanBeCleanedUp() throws {
        let text = String(repeating: "z", count: 500)
        let first = try TableServerHarness { $0.dynamicTables = true }
        for n in 0..<4 { try first.insert(#"{"id":"r\#(n)","text":"\#(text)"}"#) }
        first.server.stop()
        first.storage.close()
        let lowered = Self.limits {
            $0.maxRowBytes = 100
            $0.maxRowsPerTable = 2
            $0.memoryBudget = 1 << 10
        }
        let h = try TableServerHarness(reopening: first.directory, limits: lowered)
        #expect(try h.send("GET", "/tables/todoitem").array.count == 4)
        #expect(try h.send("POST", "/tables/todoitem", body: #"{"id":"new"}"#).status == 507)
        // Deleting and shrinking never grow anything, so they go through.
        #expect(try h.send("DELETE", "/tables/todoitem/r0").status == 200)
        #expect(try h.send("PATCH", "/tables/todoitem/r1", body: #"{"text":"small"}"#).status == 200)
        #expect(try h.send("GET", "/tables/todoitem/r1").object["text"] == "small")
    }
}
