import Testing
import TableProtocol
import TodoModel

/// Rows for query tests: text, complete, priority, note.
func seeded(_ backend: Backend = .embedded) throws -> TableServerHarness {
    let h = try TableServerHarness(backend: backend)
    for (id, text, complete, priority) in [("r1", "milk", false, 3), ("r2", "Bread", true, 1), ("r3", "I love Azure!", false, 5),
                                           ("r4", "it's", true, 2), ("r5", "  milk ", false, 4)] {
        try h.insert(#"{"id":"\#(id)","text":"\#(text)","complete":\#(complete),"priority":\#(priority)}"#)
    }
    return h
}

func q(_ h: TableServerHarness, _ query: String, g2: Bool = true) throws -> [String] {
    let r = try h.send("GET", "/tables/todoitem?" + query, g2: g2)
    #expect(r.status == 200, "\(query) -> \(r)")
    return r.array.ids
}

/// Checklist items 95–112.
@Suite struct QueryOptionTests {
    @Test(arguments: Backend.allCases) func c95_c96_c97_c98_softDeleteInQueries(backend: Backend) throws {
        let h = try seeded(backend)
        try h.send("DELETE", "/tables/todoitem/r2")
        #expect(try q(h, "") == ["r1", "r3", "r4", "r5"])
        for p in ["__includeDeleted=true", "__INCLUDEDELETED=TRUE", "__includedeleted=True"] {
            let r = try h.send("GET", "/tables/todoitem?" + p)
            #expect(r.array.ids.contains("r2") && r.array.first { $0["id"] == "r2" }?["deleted"] == true, "\(p)")
        }
        #expect(!(try q(h, "__includeDeleted=false")).contains("r2"))
        #expect(try h.send("GET", "/tables/todoitem?$inlinecount=allpages").object["count"] == 4)
        #expect(try h.send("GET", "/tables/todoitem?$inlinecount=allpages&__includeDeleted=true").object["count"] == 5)
    }

    @Test(arguments: Backend.allCases) func c99_c100_c101_filterAndOrder(backend: Backend) throws {
        let h = try seeded(backend)
        #expect(try q(h, "$filter=complete%20eq%20true&$orderby=text%20desc") == ["r4", "r2"])
        #expect(try q(h, "$orderby=complete%20desc,text%20asc") == ["r2", "r4", "r5", "r3", "r1"])
        try h.insert(#"{"id":"r0","text":"milk"}"#)
        #expect(try q(h, "$orderby=text&$filter=text%20eq%20'milk'") == ["r0", "r1"])
    }

    @Test(arguments: Backend.allCases) func c102_c103_c104_topAndSkip(backend: Backend) throws {
        let h = try seeded(backend)
        // By Unicode scalars: "  milk " < "Bread" < "I love Azure!" < "it's" < "milk".
        #expect(try q(h, "$orderby=text") == ["r5", "r2", "r3", "r4", "r1"])
        #expect(try q(h, "$top=3&$skip=2&$orderby=text") == ["r3", "r4", "r1"])
        #expect(try q(h, "$top=0") == [])
        for bad in ["$top=1001", "$top=-1", "$top=abc", "$skip=-1", "$skip=x"] {
            #expect(try h.send("GET", "/tables/todoitem?" + bad).status == 400, "\(bad)")
        }
    }

    @Test(arguments: Backend.allCases) func c105_select(backend: Backend) throws {
        let h = try seeded(backend)
        let rows = try h.send("GET", "/tables/todoitem?$select=id,text").array
        #expect(rows.allSatisfy { Set(($0.objectValue ?? [:]).keys) == ["id", "text"] } && rows.count == 5)
    }

    @Test(arguments: Backend.allCases) func c106_inlinecount(backend: Backend) throws {
        let h = try seeded(backend)
        let r = try h.send("GET", "/tables/todoitem?$inlinecount=allpages&$top=2")
        #expect(r.object["results"]?.arrayValue?.count == 2 && r.object["count"] == 5)
        #expect(try h.send("GET", "/tables/todoitem?$inlinecount=none").json?.arrayValue != nil)
        #expect(try h.send("GET", "/tables/todoitem?$inlinecount=some").status == 400)
    }

    @Test(arguments: Backend.allCases) func c107_c108_c109_c110_linkHeader(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend)
        for i in 0..<53 { try h.insert(#"{"id":"p\#(i < 10 ? "0" : "")\#(i)","complete":false}"#) }
        let first = try h.send("GET", "/tables/todoitem?$filter=complete%20eq%20false")
        #expect(first.array.count == 50)
        let link = first.headers["Link"] ?? ""
        #expect(link.hasPrefix("http://127.0.0.1:\(h.port)/tables/todoitem?") && link.hasSuffix("; rel=next") && link.contains("%24skip=50"))
        let next = String(link.dropFirst("http://127.0.0.1:\(h.port)".count).dropLast("; rel=next".count))
        #expect(try h.send("GET", next).array.count == 3)
        #expect(try h.send("GET", "/tables/todoitem?$top=100").headers["Link"] == nil)
        #expect(try h.send("GET", "/tables/todoitem?$top=100").array.count == 53)
        #expect(try h.send("GET", "/tables/todoitem", g2: false).headers["Link"] == nil)
        for i in 50..<53 { try h.send("DELETE", "/tables/todoitem/p\(i)") }
        let exact = try h.send("GET", "/tables/todoitem")
        #expect(exact.array.count == 50 && exact.headers["Link"] == nil)
    }

    @Test(arguments: Backend.allCases) func c111_c112_emptyResults(backend: Backend) throws {
        let h = try seeded(backend)
        #expect(try q(h, "$filter=text%20eq%20'none'") == [])
        #expect(try q(h, "$filter=nosuchcolumn%20eq%201") == [])
        #expect(try q(h, "$orderby=nosuchcolumn") == [])
    }
}

/// Checklist items 113–128: the filter language over HTTP (the evaluator has its own tests).
@Suite struct FilterOverHTTPTests {
    @Test(arguments: Backend.allCases, [
        ("text eq 'milk'", ["r1"]), ("text ne 'milk'", ["r2", "r3", "r4", "r5"]), ("text gt 'i'", ["r1", "r4"]),
        ("text ge 'milk'", ["r1"]), ("text lt 'C'", ["r2", "r5"]), ("text le 'Bread'", ["r2", "r5"]),
        ("complete eq false or text eq 'x' and complete eq true", ["r1", "r3", "r5"]),
        ("not (complete eq true)", ["r1", "r3", "r5"]),
        ("substringof('ove', text)", ["r3"]), ("startswith(text, 'I ')", ["r3"]), ("endswith(text, '!')", ["r3"]),
        ("tolower(text) eq 'bread'", ["r2"]), ("toupper(text) eq 'MILK'", ["r1"]), ("trim(text) eq 'milk'", ["r1", "r5"]),
        ("length(text) eq 4", ["r1", "r4"]), ("concat(text, '!') eq 'milk!'", ["r1"]), ("indexof(text, 'il') eq 1", ["r1"]),
        ("substring(text, 1) eq 'ilk'", ["r1"]), ("substring(text, 1, 2) eq 'il'", ["r1"]), ("replace(text, 'm', 's') eq 'silk'", ["r1"]),
        ("text eq 'it''s'", ["r4"]), ("priority add 1 eq 4", ["r1"]), ("priority mul 2 eq 6", ["r1"]), ("priority div 2 eq 1.5", ["r1"]),
        ("priority mod 2 eq 1", ["r1", "r2", "r3"]), ("-priority lt -4", ["r3"]), ("priority add 1 mul 2 eq 5", ["r1"]),
        ("round(priority div 2) eq 2", ["r1", "r5"]), ("floor(priority div 2) eq 1", ["r1", "r4"]), ("ceiling(priority div 2) eq 2", ["r1", "r5"]),
        ("round(-2.5) eq -3", ["r1", "r2", "r3", "r4", "r5"]), ("note eq null", ["r1", "r2", "r3", "r4", "r5"]), ("note ne null", []),
        ("text eq 5", []),
    ])
    func c113_to_c125_c128_filters(backend: Backend, filter: (String, [String])) throws {
        let (filter, expected) = filter
        let h = try seeded(backend)
        #expect(try q(h, "$filter=" + PercentEncoding.encode(filter)) == expected, "\(filter)")
    }

    @Test(arguments: Backend.allCases) func c120_c121_c122_dates(backend: Backend) throws {
        let h = try seeded(backend)
        let r3 = try h.send("GET", "/tables/todoitem/r3").object
        let updated = r3["updatedAt"]?.stringValue ?? ""
        let later = try q(h, "$filter=" + PercentEncoding.encode("updatedAt ge datetimeoffset'\(updated)'"))
        #expect(later == ["r3", "r4", "r5"])
        #expect(try q(h, "$filter=" + PercentEncoding.encode("__updatedAt ge datetimeoffset'\(updated)'"), g2: false) == ["r3", "r4", "r5"])
        #expect(try q(h, "$filter=" + PercentEncoding.encode("createdAt gt datetime'2000-01-01T00:00:00Z' and datetimeoffset'2024-05-01T11:00:00+02:00' eq datetime'2024-05-01T09:00:00.0000000Z'")).count == 5)
        let year = Int(updated.prefix(4)) ?? 0
        #expect(try q(h, "$filter=" + PercentEncoding.encode("year(createdAt) eq \(year) and month(createdAt) ge 1 and day(createdAt) ge 1 and hour(createdAt) ge 0 and minute(createdAt) ge 0 and second(createdAt) ge 0")).count == 5)
    }

    @Test(arguments: ["text eq", "text eq 'abc", "foo(text)", "text EQ 'x'", "(text eq 'x'", "a/b eq 1",
                      String(repeating: "(", count: 101) + "true" + String(repeating: ")", count: 101)])
    func c126_badFilters(filter: String) throws {
        let h = try seeded()
        let r = try h.send("GET", "/tables/todoitem?$filter=" + PercentEncoding.encode(filter))
        #expect(r.status == 400 && r.object["error"] != nil, "\(filter)")
    }

    @Test(arguments: Backend.allCases) func c127_plusIsASpace(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend)
        try h.insert(#"{"id":"s","text":"a b"}"#)
        #expect(try q(h, "$filter=text%20eq%20'a+b'") == ["s"])
    }
}
