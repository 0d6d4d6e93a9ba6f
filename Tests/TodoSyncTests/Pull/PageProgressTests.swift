import Testing
import TodoModel
@testable import TodoSync

/// The rules by which a pull notices a server that does not page (issue 15 item 4), one case each.
@Suite struct PageProgressTests {
    static func row(_ id: String, _ millisecond: Int, version: String = "v1") -> Item {
        Item(id: id, fields: [:], system: SystemProperties(
            createdAt: nil, updatedAt: "2024-05-01T09:00:00.\(String(1000 + millisecond).dropFirst())Z", version: version))
    }

    static func page(_ ids: ClosedRange<Int>, millisecond: Int? = nil) -> [Item] {
        ids.map { row("r\($0)", millisecond ?? $0) }
    }

    @Test func newRowsAreProgressInEveryMode() {
        var progress = PageProgress(pageSize: 3)
        for (i, mode) in [PageCursor.Mode.cursor, .skip, .plain].enumerated() {
            let page = Self.page((i * 3)...(i * 3 + 2))
            #expect(progress.check(page, received: 3, mode: mode, bound: nil) == nil)
            progress.applied(page, floor: nil)
        }
    }

    @Test func theSamePageTwiceInSkipModeIsAFault() {
        var progress = PageProgress(pageSize: 3)
        let page = Self.page(1...3, millisecond: 7)
        #expect(progress.check(page, received: 3, mode: .skip, bound: nil) == nil)
        progress.applied(page, floor: page[0].system.updatedAt)
        #expect(progress.check(page, received: 3, mode: .skip, bound: page[0].system.updatedAt) == .samePageAgain)
    }

    @Test func aRereadAfterTheSwitchToSkipModeIsNotAFault() {
        // Cursor pages applied rows 1–6 at one timestamp; the switch restarts at that timestamp,
        // and the first skip page is exactly the last cursor page again.
        var progress = PageProgress(pageSize: 3)
        let first = Self.page(1...3, millisecond: 7), second = Self.page(4...6, millisecond: 7)
        for page in [first, second] {
            #expect(progress.check(page, received: 3, mode: .cursor, bound: nil) == nil)
            progress.applied(page, floor: page[0].system.updatedAt)
        }
        let t = first[0].system.updatedAt
        #expect(progress.check(first, received: 3, mode: .skip, bound: t) == nil, "re-reading rows 1-3")
        progress.applied(first, floor: t)
        #expect(progress.check(second, received: 3, mode: .skip, bound: t) == nil, "re-reading rows 4-6")
        progress.applied(second, floor: t)
        #expect(progress.check(Self.page(7...9, millisecond: 8), received: 3, mode: .skip, bound: t) == nil)
    }

    @Test func moreRereadsThanRowsAppliedIsAFault() {
        var progress = PageProgress(pageSize: 2)
        let a = Self.page(1...2, millisecond: 5), b = Self.page(3...4, millisecond: 5)
        for page in [a, b] {
            #expect(progress.check(page, received: 2, mode: .plain, bound: nil) == nil, "new rows")
            progress.applied(page, floor: nil)
        }
        // Alternating old pages: never the same page twice in a row, never anything new. Rows
        // re-read up to the 4 applied plus a page (6) may be an honest overlap; 8 are not.
        #expect(progress.check(a, received: 2, mode: .plain, bound: nil) == nil)
        #expect(progress.check(b, received: 2, mode: .plain, bound: nil) == nil)
        #expect(progress.check(a, received: 2, mode: .plain, bound: nil) == nil)
        #expect(progress.check(b, received: 2, mode: .plain, bound: nil) == .nothingNew(rows: 8))
    }

    @Test func aSkipPageOutOfUpdatedAtOrderIsAFault() {
        var progress = PageProgress(pageSize: 3)
        #expect(progress.check([Self.row("a", 5), Self.row("b", 4)], received: 2, mode: .skip, bound: nil) == .outOfOrder)
        // In cursor mode the cursor itself notices and switches to skip mode.
        #expect(progress.check([Self.row("a", 5), Self.row("b", 4)], received: 2, mode: .cursor, bound: nil) == nil)
    }

    @Test func aSkipPageBeforeItsBoundIsAFault() {
        var progress = PageProgress(pageSize: 3)
        let bound = Self.row("x", 5).system.updatedAt
        #expect(progress.check([Self.row("a", 4)], received: 1, mode: .skip, bound: bound) == .beforeTheBound)
        #expect(progress.check([Self.row("a", 5), Self.row("b", 6)], received: 2, mode: .skip, bound: bound) == nil)
    }

    @Test func aNewVersionOfARowIsNew() {
        var progress = PageProgress(pageSize: 3)
        let page = [Self.row("a", 5)]
        _ = progress.check(page, received: 1, mode: .skip, bound: nil)
        progress.applied(page, floor: nil)
        #expect(progress.check([Self.row("a", 5, version: "v2")], received: 1, mode: .skip, bound: nil) == nil)
    }
}
