import Testing
import TableProtocol
import TodoModel
@testable import TodoSync

/// The decisions of sync.md §5.1–5.4 and §5.7 about where a query starts, what an answer of the
/// server means, and how the token and the table config move, one spec sentence a case.
@Suite struct PullQueryPlannerTests {
    static let stored = TableConfig.Token(updatedAt: "2024-05-01T09:00:00.000Z", id: "b7")
    static let next = TableConfig.Token(updatedAt: "2024-05-01T09:00:05.000Z", id: "c1")

    static func config(mode: TableConfig.CursorMode = .cursor, filter: String? = nil, token: TableConfig.Token? = stored,
                       hardDelete: Bool = false) -> TableConfig {
        TableConfig(name: "todoitem", cursorMode: mode,
                    queries: ["q": TableConfig.Query(filter: filter, lastPullAt: "2024-05-01T08:00:00.000Z", token: token)],
                    hardDelete: hardDelete)
    }

    static let storedQuery = PullQuery(table: "todoitem", id: "q", filter: nil)
    static let oneOff = PullQuery(table: "todoitem", id: nil, filter: "complete eq false")
    static let changedFilter = PullQuery(table: "todoitem", id: "q", filter: "complete eq true", resetToken: true)

    // MARK: Start (§5.3 step 1)

    struct StartCase: CustomTestStringConvertible, Sendable {
        let spec: String
        let query: PullQuery
        let config: TableConfig
        let full: Bool
        let start: PullPlanner.Start
        var testDescription: String { spec }
    }

    static let starts: [StartCase] = [
        StartCase(spec: "§5.3.1 Request a page from the stored token", query: storedQuery, config: config(), full: false,
                  start: .init(mode: .cursor, token: stored)),
        StartCase(spec: "§5.3.1 ... or from the beginning when there is none", query: storedQuery, config: config(token: nil), full: false,
                  start: .init(mode: .cursor, token: nil)),
        StartCase(spec: "§5.2 a table in skip mode keeps paging in skip mode", query: storedQuery,
                  config: config(mode: .skip, token: .init(updatedAt: stored.updatedAt, id: nil)), full: false,
                  start: .init(mode: .skip, token: .init(updatedAt: stored.updatedAt, id: nil))),
        StartCase(spec: "§5.7 --full ignores the stored token. The query starts from the beginning, in cursor mode", query: storedQuery,
                  config: config(mode: .skip), full: true, start: .init(mode: .cursor, token: nil)),
        StartCase(spec: "§5.1.1 --filter F without --query-id: a one-off pull with filter F: no token is read", query: oneOff,
                  config: config(), full: false, start: .init(mode: .cursor, token: nil)),
        StartCase(spec: "§5.1.1 If F differs from the stored filter ... the token is reset", query: changedFilter,
                  config: config(), full: false, start: .init(mode: .cursor, token: nil)),
    ]

    @Test("where a query starts", arguments: starts) func start(_ c: StartCase) {
        #expect(PullPlanner.start(c.query, config: c.config, full: c.full) == c.start)
    }

    // MARK: After a page (§5.3 step 4, §5.4)

    struct PageCase: CustomTestStringConvertible, Sendable {
        let spec: String
        let query: PullQuery
        let before: TableConfig
        /// The reader's token once the page is applied (its cursor: `PageCursorTests`).
        let token: TableConfig.Token?
        let after: TableConfig
        var testDescription: String { spec }
    }

    static let pages: [PageCase] = [
        PageCase(spec: "§5.3.4 Set the token ... §5.4 and the query's new token are one atomic commit", query: storedQuery,
                 before: config(), token: next, after: config(token: next)),
        PageCase(spec: "§5.1.1 A new query is stored with filter F", query: PullQuery(table: "todoitem", id: "new", filter: "complete eq true"),
                 before: TableConfig(name: "todoitem"), token: next,
                 after: TableConfig(name: "todoitem", queries: ["new": .init(filter: "complete eq true", token: next)])),
        PageCase(spec: "§5.1.1 a one-off pull with filter F: no token is ... saved", query: oneOff, before: config(), token: next, after: config()),
        PageCase(spec: "protocol §10.5.6 a page without updatedAt saves no token: the stored one stays", query: storedQuery,
                 before: config(), token: nil, after: config()),
        PageCase(spec: "§5.1.1 the stored filter is replaced, the token is reset (even by a page without updatedAt)", query: changedFilter,
                 before: config(), token: nil, after: config(filter: "complete eq true", token: nil)),
    ]

    @Test("the token a page commits", arguments: pages) func afterPage(_ c: PageCase) {
        var config = c.before
        PullPlanner.afterPage(&config, query: c.query, token: c.token)
        #expect(config == c.after)
    }

    // MARK: End of a query (§5.3 step 2)

    struct EndCase: CustomTestStringConvertible, Sendable {
        let spec: String
        let query: PullQuery
        let received: Int
        let learntDeletes: Bool
        /// nil: nothing to commit.
        let after: TableConfig?
        var testDescription: String { spec }
    }

    static let now = "2024-05-02T08:00:00.000Z"
    static func pulled(filter: String? = nil, token: TableConfig.Token? = stored, hardDelete: Bool = false) -> TableConfig {
        TableConfig(name: "todoitem", queries: ["q": .init(filter: filter, lastPullAt: now, token: token)], hardDelete: hardDelete)
    }

    static let ends: [EndCase] = [
        EndCase(spec: "§5.3.2 An empty page ends the query: a stored query records its pull", query: storedQuery, received: 10,
                learntDeletes: false, after: pulled()),
        EndCase(spec: "§5.1.1 the token is reset: a changed filter that brought no row drops the old token", query: changedFilter,
                received: 0, learntDeletes: false, after: pulled(filter: "complete eq true", token: nil)),
        EndCase(spec: "§5.1.1 a changed filter that brought rows keeps the token its pages saved", query: changedFilter,
                received: 3, learntDeletes: false, after: pulled(filter: "complete eq true")),
        EndCase(spec: "§5.1.1 a one-off pull saves nothing", query: oneOff, received: 3, learntDeletes: false, after: nil),
        EndCase(spec: "§5.7 a one-off pull still saves what it learnt about deletes", query: oneOff, received: 0, learntDeletes: true,
                after: config(hardDelete: true)),
    ]

    @Test("what the end of a query commits", arguments: ends) func atEnd(_ c: EndCase) {
        let before = Self.config(hardDelete: c.learntDeletes)
        #expect(PullPlanner.atEnd(before, query: c.query, received: c.received, learntDeletes: c.learntDeletes, now: Self.now) == c.after)
    }

    // MARK: What the server taught (protocol §10.5.5, sync.md §5.7)

    struct LearnCase: CustomTestStringConvertible, Sendable {
        let spec: String
        let before: TableConfig
        let switchedToSkip: Bool
        let serverSoftDelete: Bool?
        let after: TableConfig
        let note: PullNote?
        var testDescription: String { spec }
    }

    static let learnt: [LearnCase] = [
        LearnCase(spec: "§10.5.5 switches to fallback for the rest of the pull, saving the mode in the table config", before: config(),
                  switchedToSkip: true, serverSoftDelete: nil, after: config(mode: .skip), note: nil),
        LearnCase(spec: "§5.7 the server deletes rows for good: said once", before: config(), switchedToSkip: false,
                  serverSoftDelete: false, after: config(hardDelete: true), note: .deletesForGood(table: "todoitem")),
        LearnCase(spec: "§5.7 the server keeps deleted rows again: said once", before: config(hardDelete: true), switchedToSkip: false,
                  serverSoftDelete: true, after: config(), note: .deletesKept(table: "todoitem")),
        LearnCase(spec: "§5.7 nothing new about deletes: nothing said", before: config(hardDelete: true), switchedToSkip: false,
                  serverSoftDelete: false, after: config(hardDelete: true), note: nil),
    ]

    @Test("what the server's answers teach", arguments: learnt) func learn(_ c: LearnCase) {
        var config = c.before
        let note = PullPlanner.learn(&config, table: "todoitem", switchedToSkip: c.switchedToSkip, serverSoftDelete: c.serverSoftDelete)
        #expect(config == c.after)
        #expect(note == c.note)
    }

    // MARK: Answers (§5.3, §5.9.2)

    @Test("an empty page ends the query, a refusal skips it, a failure stops the pull (§5.3.2, §5.9.2)") func answers() {
        let row = PullRowPlannerTests.v1
        #expect(PullPlanner.step(.page(rows: [row], received: 2), query: Self.storedQuery, received: 0) == .apply(rows: [row], received: 2))
        #expect(PullPlanner.step(.end, query: Self.storedQuery, received: 0) == .finish)
        #expect(PullPlanner.step(.rejected(.noTable("todoitem")), query: Self.storedQuery, received: 0) == .skipQuery(.noTable("todoitem")))
        let network = SyncStop.network(.cannotConnect(endpoint: "127.0.0.1:9", reason: "Connection refused"))
        #expect(PullPlanner.step(.stopped(network), query: Self.storedQuery, received: 0) == .stop(network))
        let stop = PullPlanner.step(.notPaging(.samePageAgain), query: Self.storedQuery, received: 120)
        #expect(stop == .stop(SyncStop(.notPaging(.samePageAgain, read: .pull(table: "todoitem", queryID: "q"), rows: 120))))
        if case .stop(let stop) = stop { #expect(stop.kind == .server, "exit 4: the server's trouble") }
    }
}
