import Testing
import TableProtocol
import TodoModel
@testable import TodoSync

/// Where each pull page starts (protocol §10.5): the cursor condition, the `updatedAt ge` +
/// `$skip` fallback and its rules (§10.5.3), the switches to it (§10.5.5), plain `$skip` paging
/// for rows without `updatedAt` (§10.5.6), and the token each mode stores (sync.md §2.3).
@Suite struct PageCursorTests {
    static let t0 = "2024-05-01T09:00:00.000Z"
    static let t1 = "2024-05-01T09:00:00.120Z"
    static let t2 = "2024-05-01T09:00:01.000Z"

    static func row(_ id: String, _ updatedAt: String?) -> Item {
        Item(id: id, fields: [:], system: SystemProperties(updatedAt: updatedAt, version: "v"))
    }

    static func token(_ t: String, _ id: String?) -> TableConfig.Token { TableConfig.Token(updatedAt: t, id: id) }

    // MARK: Requests

    @Test("no token: no cursor condition; the query's own filter alone; updatedAt, id order; no $skip") func firstPage() {
        let cursor = PageCursor(mode: .cursor, token: nil)
        #expect(cursor.query(filter: nil, generation: .mobileApps, pageSize: 50)
            == PageQuery(filter: nil, orderBy: "updatedAt asc,id asc", top: 50))
        #expect(cursor.query(filter: "complete eq false", generation: .mobileApps, pageSize: 7)
            == PageQuery(filter: "complete eq false", orderBy: "updatedAt asc,id asc", top: 7))
        #expect(cursor.token == nil)
    }

    @Test("a cursor (T, I): rows strictly after it, the query's filter first, quotes doubled") func cursorCondition() {
        let cursor = PageCursor(mode: .cursor, token: Self.token(Self.t1, "b'7"))
        let q = cursor.query(filter: "complete eq false", generation: .mobileApps, pageSize: 50)
        #expect(q.filter == "(complete eq false) and ((updatedAt gt datetimeoffset'\(Self.t1)') or ((updatedAt eq datetimeoffset'\(Self.t1)') and (id gt 'b''7')))")
        #expect(q.skip == nil, "cursor mode never sends $skip")
        #expect(q.orderBy == "updatedAt asc,id asc")
    }

    @Test("G1 spells updatedAt __updatedAt in the filter and the order") func generationOne() {
        let q = PageCursor(mode: .cursor, token: Self.token(Self.t1, "b7")).query(filter: nil, generation: .mobileServices, pageSize: 50)
        #expect(q.filter == "(__updatedAt gt datetimeoffset'\(Self.t1)') or ((__updatedAt eq datetimeoffset'\(Self.t1)') and (id gt 'b7'))")
        #expect(q.orderBy == "__updatedAt asc,id asc")
        var skip = PageCursor(mode: .skip, token: Self.token(Self.t1, nil))
        skip.skip = 3
        #expect(skip.query(filter: nil, generation: .mobileServices, pageSize: 50)
            == PageQuery(filter: "__updatedAt ge datetimeoffset'\(Self.t1)'", orderBy: "__updatedAt asc", top: 50, skip: 3))
    }

    @Test("skip mode: (q) and (updatedAt ge T), updatedAt order, $skip from 0; no token: q alone") func skipRequests() {
        let cursor = PageCursor(mode: .skip, token: Self.token(Self.t1, nil))
        #expect(cursor.mode == .skip)
        #expect(cursor.query(filter: "complete eq false", generation: .mobileApps, pageSize: 50)
            == PageQuery(filter: "(complete eq false) and (updatedAt ge datetimeoffset'\(Self.t1)')", orderBy: "updatedAt asc", top: 50, skip: 0))
        #expect(PageCursor(mode: .skip, token: nil).query(filter: nil, generation: .mobileApps, pageSize: 50)
            == PageQuery(filter: nil, orderBy: "updatedAt asc", top: 50, skip: 0))
    }

    @Test("a table in skip mode ignores a token's id; a token without id puts a cursor table in skip mode") func tokensAcrossModes() {
        let skip = PageCursor(mode: .skip, token: Self.token(Self.t1, "b7"))
        #expect(skip.mode == .skip && skip.id == nil)
        #expect(skip.token == Self.token(Self.t1, nil))
        let idless = PageCursor(mode: .cursor, token: Self.token(Self.t1, nil))
        #expect(idless.mode == .skip, "a cursor needs an id; without one only `ge T` is safe")
        #expect(idless.query(filter: nil, generation: .mobileApps, pageSize: 50).filter == "updatedAt ge datetimeoffset'\(Self.t1)'")
    }

    // MARK: Cursor mode

    @Test("cursor mode moves to the last row of each page, rows sharing a timestamp included") func cursorAdvances() {
        var cursor = PageCursor(mode: .cursor, token: nil)
        let inOrder = cursor.advance(past: [Self.row("a", Self.t0), Self.row("b", Self.t1), Self.row("c", Self.t1)])
        #expect(inOrder)
        #expect(cursor.token == Self.token(Self.t1, "c"))
        let inOrder2 = cursor.advance(past: [Self.row("d", Self.t1), Self.row("e", Self.t2)])
        #expect(inOrder2, "a new id at T is after the cursor")
        #expect(cursor.token == Self.token(Self.t2, "e"))
        #expect(cursor.mode == .cursor)
    }

    @Test("cursor mode: a row earlier than T is not after the cursor") func earlierRow() {
        var cursor = PageCursor(mode: .cursor, token: Self.token(Self.t1, "b"))
        let inOrder = cursor.advance(past: [Self.row("c", Self.t2), Self.row("a", Self.t0)])
        #expect(!inOrder)
    }

    @Test("cursor mode: a row at T whose id was applied at T in this pull is not after the cursor") func repeatedRow() {
        var cursor = PageCursor(mode: .cursor, token: nil)
        let inOrder = cursor.advance(past: [Self.row("a", Self.t1), Self.row("b", Self.t1)])
        #expect(inOrder)
        let inOrder2 = cursor.advance(past: [Self.row("a", Self.t1)])
        #expect(!inOrder2)
        var resumed = PageCursor(mode: .cursor, token: Self.token(Self.t1, "b"))
        let inOrder3 = resumed.advance(past: [Self.row("B", Self.t1)])
        #expect(!inOrder3, "the token's own row, in any case, coming back")
        var later = PageCursor(mode: .cursor, token: Self.token(Self.t1, "b"))
        let inOrder4 = later.advance(past: [Self.row("c", Self.t2)])
        #expect(inOrder4)
        let inOrder5 = later.advance(past: [Self.row("c", Self.t2)])
        #expect(!inOrder5, "the ids at the new T are remembered")
    }

    @Test("dates are compared as instants, not as text") func instants() {
        var cursor = PageCursor(mode: .cursor, token: Self.token("2024-05-01T09:00:00.5Z", "a"))
        let inOrder = cursor.advance(past: [Self.row("a", "2024-05-01T09:00:00.500Z")])
        #expect(!inOrder)
        var skip = PageCursor(mode: .skip, token: Self.token("2024-05-01T09:00:00.5Z", nil))
        let inOrder2 = skip.advance(past: [Self.row("a", "2024-05-01T09:00:00.500+00:00")])
        #expect(inOrder2)
        #expect(skip.skip == 1 && skip.updatedAt == "2024-05-01T09:00:00.5Z", "an equal instant does not move T")
    }

    @Test("fallBack: skip mode from the given token's updatedAt, $skip 0, id dropped") func fallBack() {
        var cursor = PageCursor(mode: .cursor, token: Self.token(Self.t1, "b"))
        _ = cursor.advance(past: [Self.row("c", Self.t2)])
        cursor.fallBack(to: Self.token(Self.t1, "b"))
        #expect(cursor.mode == .skip && cursor.skip == 0)
        #expect(cursor.token == Self.token(Self.t1, nil))
        #expect(cursor.query(filter: nil, generation: .mobileApps, pageSize: 50)
            == PageQuery(filter: "updatedAt ge datetimeoffset'\(Self.t1)'", orderBy: "updatedAt asc", top: 50, skip: 0))
        var fresh = PageCursor(mode: .cursor, token: nil)
        fresh.fallBack(to: nil)
        #expect(fresh.query(filter: "complete eq true", generation: .mobileApps, pageSize: 50)
            == PageQuery(filter: "complete eq true", orderBy: "updatedAt asc", top: 50, skip: 0))
        #expect(fresh.token == nil)
    }

    // MARK: Skip mode (§10.5.3)

    @Test("skip mode: M > T sets T = M and S = the rows at M; M = T adds the page to S") func skipRule() {
        var cursor = PageCursor(mode: .skip, token: nil)
        let inOrder = cursor.advance(past: [Self.row("a", Self.t0), Self.row("b", Self.t1), Self.row("c", Self.t1)])
        #expect(inOrder)
        #expect(cursor.updatedAt == Self.t1 && cursor.skip == 2)
        let inOrder2 = cursor.advance(past: [Self.row("d", Self.t1), Self.row("e", Self.t1)])
        #expect(inOrder2)
        #expect(cursor.updatedAt == Self.t1 && cursor.skip == 4, "the whole page was at T: S grows by the page")
        let inOrder3 = cursor.advance(past: [Self.row("f", Self.t1), Self.row("g", Self.t2)])
        #expect(inOrder3)
        #expect(cursor.updatedAt == Self.t2 && cursor.skip == 1)
        #expect(cursor.token == Self.token(Self.t2, nil), "skip-mode tokens have no id")
        #expect(cursor.query(filter: nil, generation: .mobileApps, pageSize: 50)
            == PageQuery(filter: "updatedAt ge datetimeoffset'\(Self.t2)'", orderBy: "updatedAt asc", top: 50, skip: 1))
    }

    @Test("skip mode takes the largest updatedAt of the page even when rows come unordered") func skipLargest() {
        var cursor = PageCursor(mode: .skip, token: Self.token(Self.t0, nil))
        let inOrder = cursor.advance(past: [Self.row("a", Self.t2), Self.row("b", Self.t1), Self.row("c", Self.t2)])
        #expect(inOrder)
        #expect(cursor.updatedAt == Self.t2 && cursor.skip == 2)
    }

    // MARK: Plain paging (§10.5.6)

    @Test("a page without any updatedAt: plain $skip paging, no cursor, no token") func plain() {
        var cursor = PageCursor(mode: .cursor, token: nil)
        let inOrder = cursor.advance(past: [Self.row("a", nil), Self.row("b", nil)])
        #expect(inOrder)
        #expect(cursor.mode == .plain && cursor.skip == 2 && cursor.token == nil)
        let q = cursor.query(filter: "complete eq false", generation: .mobileApps, pageSize: 50)
        #expect(q.filter == "complete eq false" && q.skip == 2)
        let inOrder2 = cursor.advance(past: [Self.row("c", Self.t1)])
        #expect(inOrder2, "plain mode only counts")
        #expect(cursor.skip == 3 && cursor.token == nil)
    }

    @Test("rows without updatedAt in a stamped page are applied but do not move the cursor") func partlyStamped() {
        var cursor = PageCursor(mode: .cursor, token: nil)
        let inOrder = cursor.advance(past: [Self.row("a", Self.t1), Self.row("z", nil)])
        #expect(inOrder)
        #expect(cursor.token == Self.token(Self.t1, "a"))
    }
}

extension PageCursor {
    /// A page whose every row was valid: as many received as applied.
    mutating func advance(past rows: [Item]) -> Bool { advance(past: rows, received: rows.count) }
}
