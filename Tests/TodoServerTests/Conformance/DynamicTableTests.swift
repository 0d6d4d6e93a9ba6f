import Testing
import TableProtocol
import TodoModel

/// Dynamic tables (protocol §3.1.2): a POST insert to an unknown table creates it, as part of that
/// insert (issue 22): the table appears with its first row, or not at all.
@Suite struct DynamicTableTests {
    @Test func anInsertCreatesTheTableWithItsRow() throws {
        let h = try TableServerHarness { $0.dynamicTables = true }
        #expect(try h.send("GET", "/tables/Notes").status == 404)
        let r = try h.send("POST", "/tables/Notes", body: #"{"id":"n1","k":1,"c1":1}"#)
        #expect(r.status == 201 && r.object["k"] == 1 && r.object["c1"] == 1, "\(r)")
        #expect(r.headers["Location"]?.hasSuffix("/tables/Notes/n1") == true)
        let page = try h.send("GET", "/tables/notes")
        #expect(page.status == 200 && page.array.count == 1 && page.array.first?["c1"] == 1, "\(page)")
        #expect(h.storage.tableNames().contains("Notes"))
        // Another spelling later finds the same table, and URLs keep the first one.
        let second = try h.send("POST", "/tables/NOTES", body: #"{"id":"n2"}"#)
        #expect(second.status == 201 && second.headers["Location"]?.hasSuffix("/tables/Notes/n2") == true)
    }

    @Test func aRefusedInsertLeavesNoTable() throws {
        let h = try TableServerHarness { $0.dynamicTables = true }
        for body in ["[1]", "{", #"{"__version":"x"}"#, #"{"a":{"b":1}}"#, #"{"ID":"x"}"#] {
            let r = try h.send("POST", "/tables/ghost", body: body)
            #expect(r.status == 400, "\(body): \(r)")
        }
        #expect(try h.send("GET", "/tables/ghost").status == 404)
        #expect(try h.send("PATCH", "/tables/ghost/x", body: #"{"k":1}"#).status == 404)
        #expect(!h.storage.tableNames().contains { $0.lowercased() == "ghost" })
    }

    @Test func withoutDynamicTablesAnUnknownTableIs404() throws {
        let h = try TableServerHarness()
        #expect(try h.send("POST", "/tables/other", body: #"{"id":"a"}"#).status == 404)
        #expect(try h.send("GET", "/tables/other").status == 404)
    }
}
