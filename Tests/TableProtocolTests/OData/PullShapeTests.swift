import Testing
@testable import TableProtocol

@Suite("Incremental pull shape (§10.5, §8.12)")
struct PullShapeTests {
    private let t = "2024-05-01T09:00:00.120Z"

    private func shape(_ filter: String?, _ orderBy: String? = "updatedAt asc,id asc") throws -> PullShape? {
        try PullShape.recognise(filter: filter.map(ODataQueryOptions.parseFilter), orderBy: orderBy.map(OrderBy.parse))
    }

    private var instant: WireInstant { ODataTestTable.instant(t) }

    @Test("the exact §10.5.2 strings, G2 and G1, with and without q")
    func cursorMode() throws {
        let g2 = "(updatedAt gt datetimeoffset'\(t)') or ((updatedAt eq datetimeoffset'\(t)') and (id gt 'b7'))"
        let g1 = "(__updatedAt gt datetimeoffset'\(t)') or ((__updatedAt eq datetimeoffset'\(t)') and (id gt 'b7'))"
        let bound = PullLowerBound(updatedAt: instant, id: "b7", inclusive: false)

        #expect(try shape(g2) == PullShape(lowerBound: bound, residual: nil))
        #expect(try shape(g1, "__updatedAt asc,id asc") == PullShape(lowerBound: bound, residual: nil))

        let q = try ODataQueryOptions.parseFilter("complete eq false")
        let withQ = "(complete eq false) and (\(g2))"
        #expect(try shape(withQ) == PullShape(lowerBound: bound, residual: q))
        #expect(try shape("(complete eq false) and (\(g1))", "__updatedAt asc,id asc")
            == PullShape(lowerBound: bound, residual: q))
        // q itself an `and`: the residual keeps all of it.
        let q2 = "text ne 'x' and priority gt 1"
        #expect(try shape("(\(q2)) and (\(g2))")?.residual == ODataQueryOptions.parseFilter(q2))
        #expect(try shape("\(q2) and (\(g2))")?.residual == ODataQueryOptions.parseFilter(q2))
    }

    @Test("the texts PullFilterText builds are the §10.5 strings and are recognised")
    func clientTexts() throws {
        let g2 = PullFilterText.cursorCondition(updatedAtName: Generation.mobileApps.name(.updatedAt), updatedAtText: t, id: "b7")
        #expect(g2 == "(updatedAt gt datetimeoffset'\(t)') or ((updatedAt eq datetimeoffset'\(t)') and (id gt 'b7'))")
        let full = try #require(PullFilterText.combine(query: "complete eq false", condition: g2))
        #expect(full == "(complete eq false) and ((updatedAt gt datetimeoffset'2024-05-01T09:00:00.120Z') or "
            + "((updatedAt eq datetimeoffset'2024-05-01T09:00:00.120Z') and (id gt 'b7')))")
        #expect(PullFilterText.combine(query: nil, condition: nil) == nil)
        #expect(PullFilterText.combine(query: "q", condition: nil) == "q")

        let quoted = PullFilterText.cursorCondition(updatedAtName: Generation.mobileServices.name(.updatedAt),
                                                    updatedAtText: "2024-05-01T09:00:00.1234567Z", id: "it's")
        #expect(quoted.contains("(id gt 'it''s')"))
        let recognised = try #require(try shape(quoted, "__updatedAt,id"))
        #expect(recognised.lowerBound == PullLowerBound(updatedAt: WireInstant(ticks: 17_145_540_001_234_567),
                                                        id: "it's", inclusive: false))
    }

    @Test("fallback mode: updatedAt ge T, with or without q, ordered by updatedAt alone")
    func fallbackMode() throws {
        let bound = PullLowerBound(updatedAt: instant, id: nil, inclusive: true)
        let ge = PullFilterText.fallbackCondition(updatedAtName: "updatedAt", updatedAtText: t)
        #expect(ge == "updatedAt ge datetimeoffset'\(t)'")
        #expect(try shape(ge, "updatedAt") == PullShape(lowerBound: bound, residual: nil))
        #expect(try shape("(\(ge))", "updatedAt asc") == PullShape(lowerBound: bound, residual: nil))
        #expect(try shape("(complete eq false) and (__updatedAt ge datetimeoffset'\(t)')", "__updatedAt asc")
            == PullShape(lowerBound: bound, residual: try ODataQueryOptions.parseFilter("complete eq false")))
        // Checklist 129: the JS SDK's first page.
        #expect(try shape("(updatedAt ge datetimeoffset'1970-01-01T00:00:00.000Z')", "updatedAt")?.lowerBound
            == PullLowerBound(updatedAt: .epoch, id: nil, inclusive: true))
    }

    @Test("first pages: the order matches, no bound")
    func withoutCursor() throws {
        #expect(try shape(nil) == PullShape(lowerBound: nil, residual: nil))
        let q = try ODataQueryOptions.parseFilter("complete eq false")
        #expect(try shape("complete eq false") == PullShape(lowerBound: nil, residual: q))
    }

    @Test("other shapes are not recognised, or give no bound", arguments: [
        // Other orders: nil.
        ("updatedAt gt datetimeoffset'2024-05-01T09:00:00.120Z'", "text"),
        ("updatedAt gt datetimeoffset'2024-05-01T09:00:00.120Z'", "updatedAt desc"),
        ("updatedAt gt datetimeoffset'2024-05-01T09:00:00.120Z'", "updatedAt,id desc"),
        ("updatedAt gt datetimeoffset'2024-05-01T09:00:00.120Z'", "id,updatedAt"),
        ("updatedAt gt datetimeoffset'2024-05-01T09:00:00.120Z'", "createdAt,id"),
        ("updatedAt gt datetimeoffset'2024-05-01T09:00:00.120Z'", "updatedAt,text"),
    ])
    func otherOrders(filter: String, orderBy: String) throws {
        #expect(try shape(filter, orderBy) == nil)
        #expect(try PullShape.recognise(filter: ODataQueryOptions.parseFilter(filter), orderBy: nil) == nil)
    }

    @Test("filters that are not a cursor condition are all residual", arguments: [
        // T differs between the two halves.
        "(updatedAt gt datetimeoffset'2024-05-01T09:00:00.120Z') or ((updatedAt eq datetimeoffset'2024-05-01T09:00:00.121Z') and (id gt 'b7'))",
        // or, not and, around the cursor.
        "(complete eq false) or (updatedAt ge datetimeoffset'2024-05-01T09:00:00.120Z')",
        "not (updatedAt ge datetimeoffset'2024-05-01T09:00:00.120Z')",
        "updatedAt lt datetimeoffset'2024-05-01T09:00:00.120Z'",
        "createdAt ge datetimeoffset'2024-05-01T09:00:00.120Z'",
        "updatedAt ge 5",
        "updatedAt ge 'soon'",
        "(updatedAt gt datetimeoffset'2024-05-01T09:00:00.120Z') or ((updatedAt eq datetimeoffset'2024-05-01T09:00:00.120Z') and (id ge 'b7'))",
        "(updatedAt gt datetimeoffset'2024-05-01T09:00:00.120Z') or ((updatedAt eq datetimeoffset'2024-05-01T09:00:00.120Z') and (text gt 'b7'))",
        "(updatedAt gt datetimeoffset'2024-05-01T09:00:00.120Z') or (id gt 'b7')",
    ])
    func notCursors(filter: String) throws {
        let expression = try ODataQueryOptions.parseFilter(filter)
        #expect(try shape(filter) == PullShape(lowerBound: nil, residual: expression))
    }

    @Test("a bound admits exactly the index entries the filter selects")
    func admitsAgreesWithFilter() throws {
        let cursor = PullFilterText.cursorCondition(updatedAtName: "updatedAt", updatedAtText: t, id: "b")
        let ge = PullFilterText.fallbackCondition(updatedAtName: "updatedAt", updatedAtText: t)
        let gt = "updatedAt gt datetimeoffset'\(t)'"
        let times = ["2024-05-01T09:00:00.119Z", t, "2024-05-01T09:00:00.1200001Z", "2024-05-02T00:00:00Z"]
        let ids = ["a", "b", "b0", "B", "c", "e\u{301}"]
        for filterText in [cursor, ge, gt] {
            let filter = try ODataQueryOptions.parseFilter(filterText)
            let bound = try #require(try shape(filterText)?.lowerBound)
            for time in times {
                for id in ids {
                    let row = ODataTestRow(id: id, createdAt: .epoch, updatedAt: ODataTestTable.instant(time))
                    #expect(bound.admits(updatedAt: row.updatedAt, id: id) == filter.matches(row), "\(filterText) \(time) \(id)")
                }
            }
        }
    }
}
