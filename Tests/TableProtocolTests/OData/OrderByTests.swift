import Testing
import TodoModel
@testable import TableProtocol

@Suite("$orderby (§8.8)")
struct OrderByTests {
    /// Sorts rows the way the server does: keys with the id tie-break, evaluated once per row.
    private func sortedIDs(_ orderBy: String, _ rows: [ODataTestRow] = ODataTestTable.rows) throws -> String {
        let order = try OrderBy.parse(orderBy).withIDTieBreak
        let keyed = rows.map { (order.keyValues(of: $0), $0.id) }
        let viaKeys = keyed.sorted { order.compare($0.0, $1.0) < 0 }.map(\.1)
        let viaRows = rows.sorted { order.areInIncreasingOrder($0, $1) }.map(\.id)
        #expect(viaKeys == viaRows)
        return viaKeys.joined(separator: ",")
    }

    private func row(_ id: String, _ value: JSONValue) -> ODataTestRow {
        ODataTestRow(id: id, createdAt: .epoch, updatedAt: .epoch, columns: ["v": value])
    }

    @Test("parses keys, directions and spaces")
    func parsing() throws {
        let order = try OrderBy.parse(" text desc ,priority asc,  tolower(note) ")
        #expect(order.keys.map(\.expression.description) == ["text", "priority", "tolower(note)"])
        #expect(order.keys.map(\.descending) == [true, false, false])
        #expect(order.referencedColumns == ["text", "priority", "note"])
        #expect(try OrderBy.parse("__updatedAt asc,id asc").keys.map(\.expression.node)
            == [.member(.system(.updatedAt)), .member(.id)])
    }

    @Test("syntax errors carry a position", arguments: [
        ("", 0, "the expression is empty"),
        ("text,", 5, "expected an expression after ','"),
        ("text desc desc", 10, "expected 'asc', 'desc' or ','"),
        ("text DESC", 5, "keywords are lower case ('desc')"),
        ("text eq", 7, "expected an expression after 'eq'"),
        ("a/b", 1, "'/' is not supported"),
        ("foo(text)", 0, "unknown function 'foo'"),
        (",text", 0, "expected an expression, found ','"),
    ])
    func errors(text: String, position: Int, fragment: String) throws {
        do {
            _ = try OrderBy.parse(text)
            Issue.record("\(text) parsed")
        } catch {
            #expect(error.option == "$orderby")
            #expect(error.position == position, "\(error.message)")
            #expect(error.reason.contains(fragment), "\(error.message)")
            #expect(error.message.hasPrefix("Invalid $orderby at position \(position): "))
        }
    }

    @Test("99, 100: one and several keys")
    func keys() throws {
        #expect(try sortedIDs("text desc") == "a,e,f,b,d,c")
        #expect(try sortedIDs("complete desc,text asc") == "d,b,f,c,a,e")
        #expect(try sortedIDs("priority") == "e,b,c,a,f,d")
        #expect(try sortedIDs("priority desc") == "d,f,a,c,b,e")
    }

    @Test("type rank: null < boolean < number < string < date; desc reverses it completely")
    func typeRanks() throws {
        let rows = [
            row("5", .string("2024-05-01")), row("4", .string("b")), row("3", .number(-1)),
            row("2", .bool(true)), row("1", .null), row("0", .bool(false)),
        ]
        #expect(try sortedIDs("v", rows) == "1,0,2,3,5,4")
        #expect(try sortedIDs("v desc", rows) == "4,5,3,2,0,1")
        // A date (a system property's value) ranks above every string.
        let order = try OrderBy.parse("x")
        #expect(order.compare([.string("zzz")], [.date(.epoch)]) < 0)
        #expect(order.compare([.date(.epoch)], [.string("zzz")]) > 0)
        #expect(try OrderBy.parse("x desc").compare([.date(.epoch)], [.string("zzz")]) < 0)
        #expect(order.compare([.date(.epoch)], [.date(WireInstant(ticks: 1))]) < 0)
    }

    @Test("101: equal keys come in id order, by Unicode scalars")
    func tieBreak() throws {
        // Swift's `<` would put "f" before "e\u{301}" (it compares "é"); scalars put "e" first.
        let rows = [row("f", .number(1)), row("e\u{301}", .number(1)), row("E", .number(1)), row("a", .number(2))]
        #expect(try sortedIDs("v", rows) == "E,e\u{301},f,a")
        #expect(try sortedIDs("v desc", rows) == "a,E,e\u{301},f")
        #expect(try sortedIDs("v desc,id desc", rows) == "a,f,e\u{301},E")
    }

    @Test("the id tie-break is appended unless id already is a key")
    func tieBreakRule() throws {
        #expect(try OrderBy.parse("text").withIDTieBreak.keys.map(\.expression.description) == ["text", "id"])
        #expect(try OrderBy.parse("ID desc, text").withIDTieBreak.keys.count == 2)
        #expect(try OrderBy.parse("tolower(id)").withIDTieBreak.keys.count == 2)
        #expect(OrderBy.byID.withIDTieBreak == OrderBy.byID)
    }

    @Test("dates order by instant, strings by scalars, booleans false first")
    func withinTypes() throws {
        #expect(try sortedIDs("updatedAt,id desc") == "f,e,a,b,c,d")
        #expect(try sortedIDs("complete") == "e,a,c,b,d,f")
    }
}
