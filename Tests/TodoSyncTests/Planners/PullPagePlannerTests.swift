import Testing
import TodoModel
@testable import TodoSync

/// The notes under sync.md §5.5 that span rows of one page ("applying the same row twice is
/// harmless"; §10.2 ids that differ only in case), one note a case: a later row of a page meets
/// the state the earlier row leaves, before anything is on disk.
@Suite struct PullPagePlannerTests {
    typealias T = PullRowPlannerTests

    struct Case: CustomTestStringConvertible, Sendable {
        let spec: String
        let local: PulledRow.Local
        let rows: [Item]
        let decisions: [RowDecision]
        /// Per row: the id spelt otherwise that the pull warns about (sync.md §10.2), if any.
        let otherSpellings: [String?]
        var testDescription: String { spec }
    }

    /// The rows of §5.5's fixtures, spelt like the local item.
    static let hasTheChange = T.server("x", "v2", ["text": "b", "complete": false])
    static let merges = T.server("x", "v2", ["text": "a", "complete": true])

    static let cases: [Case] = [
        Case(spec: "Cases 2 and 3 give the same result again.", local: T.local(nil), rows: [T.v2Clashes, T.v2Clashes],
             decisions: [.apply(.created), .skip(.alreadyThere)], otherSpellings: [nil, nil]),
        Case(spec: "After case 9 the op is gone, so case 3 rewrites the same item.",
             local: T.local(T.edited(T.update.item.fields), [T.update]), rows: [hasTheChange, hasTheChange],
             decisions: [.apply(.absorbed), .skip(.alreadyThere)], otherSpellings: [nil, nil]),
        Case(spec: "After case 10 the base equals R, so a second application hits case 7.",
             local: T.local(T.edited(T.update.item.fields), [T.update]), rows: [merges, merges],
             decisions: [.apply(.merged), .skip(.serverUnchangedSinceBase)], otherSpellings: [nil, nil]),
        Case(spec: "§10.2: a row whose id differs only in case from an item pulled before: one item, and a warning",
             local: T.local(T.v1File), rows: [T.server("X", "v2", ["text": "z"])],
             decisions: [.apply(.updated)], otherSpellings: ["x"]),
        Case(spec: "§10.2: two rows of one page whose ids differ only in case: the second replaces the first, with a warning",
             local: T.local(nil), rows: [T.server("x", "v2", ["text": "y"]), T.server("X", "v3", ["text": "z"])],
             decisions: [.apply(.created), .apply(.updated)], otherSpellings: [nil, "x"]),
        Case(spec: "§10.2: an item created here and never pulled is no other spelling: the row is its own insert",
             local: T.local(Item(id: "x", fields: T.insert.item.fields), [T.insert]), rows: [T.server("X", "v1", ["text": "a", "complete": false])],
             decisions: [.apply(.absorbed)], otherSpellings: [nil]),
    ]

    @Test("§5.5 notes: rows of one page meet what the earlier rows leave", arguments: cases) func laterRowsMeetEarlierOnes(_ c: Case) {
        let page = PullPlanner.page(c.rows, table: "todoitem", locals: [LocalIndex.slot("todoitem", "x"): c.local], now: T.now)
        #expect(page.rows.map(\.decision) == c.decisions)
        #expect(page.rows.map(\.otherSpelling) == c.otherSpellings)
        #expect(page.after.count == 1, "one item, whatever the spelling")
    }

    @Test("the state a page leaves is what the index learns on commit") func afterIsTheLastState() {
        let page = PullPlanner.page([T.v2Merges], table: "todoitem",
                                    locals: [LocalIndex.slot("todoitem", "x"): T.local(T.edited(T.update.item.fields), [T.update])], now: T.now)
        let after = page.after[LocalIndex.slot("todoitem", "x")]
        #expect(after?.item == T.merged)
        #expect(after?.operations.map(\.base) == [T.v2Merges], "the op is rebased on R")
        #expect(after?.conflict == nil)
    }
}
