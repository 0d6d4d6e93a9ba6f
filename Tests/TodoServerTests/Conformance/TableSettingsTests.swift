import Testing
import TableProtocol
import TodoModel
@testable import TodoServer

/// Issue 17 item 6: tables as Mobile Apps serves them. Hard delete (conformance 87, 93), integer
/// `autoIncrement` ids, a fixed schema, and the header that tells clients a table's settings. The
/// real service on a real socket.
@Suite struct TableSettingsTests {
    static func server(_ options: [String: TableOptions]) throws -> TableServerHarness {
        try TableServerHarness {
            $0.tables = ["todoitem"] + options.keys.sorted()
            for (name, o) in options { $0.tableOptions[name.lowercased()] = o }
        }
    }

    // MARK: Hard delete

    @Test func hardDeleteRemovesTheRow() throws {  // conformance 87
        let h = try Self.server(["plain": TableOptions(softDelete: false)])
        let v0 = try h.insert(#"{"id":"a","text":"t"}"#, table: "plain")["version"]
        let deleted = try h.send("DELETE", "/tables/plain/a")
        #expect(deleted.status == 200 && deleted.object["id"] == "a" && deleted.object["text"] == "t", "\(deleted)")
        // The row as it was before removal (protocol §5.5).
        #expect(deleted.object["deleted"] == false && deleted.object["version"] == v0)
        #expect(try h.send("GET", "/tables/plain/a?__includeDeleted=true").status == 404)
        #expect(try h.send("GET", "/tables/plain?__includeDeleted=true").array.isEmpty)
        #expect(try h.send("DELETE", "/tables/plain/a").status == 404)
        #expect(try h.send("POST", "/tables/plain", body: #"{"id":"a","text":"again"}"#).status == 201)
        // G1 answers 204 without a body, as on a soft-delete table.
        let g1 = try h.send("DELETE", "/tables/plain/a", g2: false)
        #expect(g1.status == 204 && g1.body.isEmpty)
        // The soft-delete table beside it still keeps its deleted rows.
        try h.insert(#"{"id":"s"}"#)
        #expect(try h.send("DELETE", "/tables/todoitem/s").object["deleted"] == true)
    }

    @Test func undeleteOnAHardDeleteTableIs400() throws {  // conformance 93
        let h = try Self.server(["plain": TableOptions(softDelete: false)])
        try h.insert(#"{"id":"a"}"#, table: "plain")
        let r = try h.send("POST", "/tables/plain/a")
        #expect(r.status == 400)
        #expect(r.object["error"] == "The table 'plain' does not keep deleted items, so nothing can be undeleted.")
    }

    @Test func everyAnswerAboutATableNamesItsSettings() throws {
        let h = try Self.server(["plain": TableOptions(softDelete: false), "counters": TableOptions(idType: .autoIncrement)])
        #expect(try h.send("GET", "/tables/plain").headers["X-Todo-Table-Settings"] == "softDelete=false; idType=string")
        #expect(try h.send("GET", "/tables/todoitem/missing").headers["x-todo-table-settings"] == "softDelete=true; idType=string")
        #expect(try h.send("POST", "/tables/counters", body: #"{"id":"x"}"#).headers["X-Todo-Table-Settings"]
            == "softDelete=true; idType=autoIncrement")
        #expect(try h.send("GET", "/tables/nosuch").headers["X-Todo-Table-Settings"] == nil)
    }

    // MARK: autoIncrement

    @Test func anInsertWithoutIdGetsTheNextInteger() throws {
        let h = try Self.server(["counters": TableOptions(idType: .autoIncrement)])
        let first = try h.send("POST", "/tables/counters", body: #"{"name":"a"}"#)
        #expect(first.status == 201 && first.object["id"] == .number(1), "\(first)")
        #expect(first.text.hasPrefix(#"{"createdAt":"#) && first.text.contains(#""id":1,"#), "a JSON number: \(first)")
        #expect(first.headers["Location"]?.hasSuffix("/tables/counters/1") == true)
        #expect(try h.send("POST", "/tables/counters", body: #"{"name":"b","id":null}"#).object["id"] == .number(2))
        // G1 too; and GET, PATCH, DELETE by the integer in the URL.
        #expect(try h.send("POST", "/tables/counters", g2: false, body: #"{"name":"c"}"#).object["id"] == .number(3))
        let read = try h.send("GET", "/tables/counters/2")
        #expect(read.status == 200 && read.object["name"] == "b" && read.object["id"] == .number(2))
        let patched = try h.send("PATCH", "/tables/counters/2", body: #"{"id":2,"name":"B"}"#)
        #expect(patched.status == 200 && patched.object["name"] == "B" && patched.object["id"] == .number(2), "\(patched)")
        #expect(try h.send("PATCH", "/tables/counters", body: #"{"id":3,"name":"C"}"#).object["name"] == "C")
        #expect(try h.send("DELETE", "/tables/counters/1").object["deleted"] == true)
        #expect(try h.send("GET", "/tables/counters/1").status == 404)
        #expect(try h.send("GET", "/tables/counters/1?__includeDeleted=true").object["id"] == .number(1))
        #expect(try h.send("GET", "/tables/counters/007").object["id"] == nil, "a missing id is 404")
    }

    @Test func badIntegerIdsAre400WithAClearMessage() throws {
        let h = try Self.server(["counters": TableOptions(idType: .autoIncrement)])
        try h.insert(#"{"name":"a"}"#, table: "counters")
        let given = try h.send("POST", "/tables/counters", body: #"{"id":7,"name":"x"}"#)
        #expect(given.status == 400)
        #expect(given.object["error"] == "The table 'counters' hands out its ids (autoIncrement): leave 'id' out of an insert, or send null.")
        #expect(try h.send("POST", "/tables/counters", body: #"{"id":"abc"}"#).status == 400)
        let url = try h.send("GET", "/tables/counters/abc")
        #expect(url.status == 400)
        #expect(url.object["error"] == "Invalid id in the URL: the table 'counters' has integer ids (autoIncrement), and 'abc' is not a whole number from 1 to 9007199254740991.")
        #expect(try h.send("GET", "/tables/counters/0").status == 400)
        let stringID = try h.send("PATCH", "/tables/counters/1", body: #"{"id":"1","name":"y"}"#)
        #expect(stringID.status == 400)
        #expect(stringID.object["error"] == "The member 'id' must be a number, not string: the table has integer ids (autoIncrement).")
        #expect(try h.send("PATCH", "/tables/counters/1", body: #"{"id":2,"name":"y"}"#).status == 400)
        #expect(try h.send("PATCH", "/tables/counters/1", body: #"{"id":1.5}"#).status == 400)
        // A string-id table still refuses a number.
        #expect(try h.send("POST", "/tables/todoitem", body: #"{"id":5}"#).status == 400)
    }

    @Test func filtersAndOrderSeeIntegerIdsAsNumbers() throws {
        let h = try Self.server(["counters": TableOptions(idType: .autoIncrement)])
        for n in 1...12 { try h.insert(#"{"n":\#(n)}"#, table: "counters") }
        let five = try h.send("GET", "/tables/counters?$filter=id%20eq%205")
        #expect(five.array.count == 1 && five.array.first?["n"] == .number(5), "\(five)")
        #expect(try h.send("GET", "/tables/counters?$filter=id%20eq%20'5'").array.isEmpty, "a number never equals a string")
        let ids = try h.send("GET", "/tables/counters").array.map { $0["id"] }
        #expect(ids == (1...12).map { JSONValue.number(Double($0)) }, "numeric order, not 1, 10, 11, 12, 2")
        let desc = try h.send("GET", "/tables/counters?$orderby=id%20desc&$top=3").array.map { $0["id"] }
        #expect(desc == [.number(12), .number(11), .number(10)])
        #expect(try h.send("GET", "/tables/counters?$filter=id%20gt%2010").array.count == 2)
        // The Azure SDKs' pull: updatedAt ge T, ordered by updatedAt, with $skip.
        let pull = try h.send("GET", "/tables/counters?$filter=updatedAt%20ge%20datetimeoffset'1970-01-01T00:00:00.000Z'&$orderby=updatedAt&$top=5&$skip=10&__includeDeleted=true")
        #expect(pull.array.map { $0["id"] } == [.number(11), .number(12)])
    }

    @Test func deletedIdsAreNeverHandedOutAgainEvenAfterARestart() throws {
        let h = try Self.server(["counters": TableOptions(softDelete: false, idType: .autoIncrement)])
        for _ in 1...3 { try h.insert(#"{}"#, table: "counters") }
        #expect(try h.send("DELETE", "/tables/counters/3").status == 200)
        #expect(try h.insert(#"{}"#, table: "counters")["id"] == .number(4))
        #expect(try h.send("DELETE", "/tables/counters/4").status == 200)
        h.storage.compact("counters")
        h.server.stop()
        h.storage.close()
        let again = try TableServerHarness(reopening: h.directory) { $0.tables = ["todoitem", "counters"] }
        #expect(try again.insert(#"{}"#, table: "counters")["id"] == .number(5))
        #expect(try again.send("GET", "/tables/counters").array.map { $0["id"] } == [.number(1), .number(2), .number(5)])
    }

    // MARK: Fixed schema

    @Test func aFixedSchemaRefusesNewColumns() throws {
        let h = try Self.server(["notes": TableOptions(dynamicSchema: false, columns: ["text": .string, "done": .boolean])])
        #expect(try h.send("POST", "/tables/notes", body: #"{"id":"n","text":"t","done":false}"#).status == 201)
        let r = try h.send("POST", "/tables/notes", body: #"{"id":"m","text":"t","colour":"red"}"#)
        #expect(r.status == 400)
        #expect(r.object["error"]?.stringValue == "The table 'notes' has a fixed schema (dynamicSchema is off) without a column 'colour': "
            + "nothing was written. Its columns are: done, text. Ask the server's operator to declare the column in the table config file.")
        #expect(try h.send("PATCH", "/tables/notes/n", body: #"{"colour":"red"}"#).status == 400)
        #expect(try h.send("GET", "/tables/notes/m").status == 404)
        // Declared columns are typed from the start; a dynamic table beside it still learns columns.
        #expect(try h.send("POST", "/tables/notes", body: #"{"id":"k","done":"yes"}"#).status == 400)
        #expect(try h.send("POST", "/tables/todoitem", body: #"{"id":"x","colour":"red"}"#).status == 201)
    }
}
