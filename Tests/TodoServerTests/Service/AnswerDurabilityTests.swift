import Glibc
import Testing
import TableProtocol
import TodoBasics
import TodoModel
import TodoTestSupport
@testable import TodoServer

/// The service's answers carry their durability as a value (issue 16 item 4): the response, the
/// ticket of what it reports or shows, and the response to send if that ticket fails. No socket:
/// the tests settle the tickets themselves, as the connection handler does.
@Suite struct AnswerDurabilityTests {
    /// A service on the embedded store in a temp folder, with tables `todoitem` and `other`.
    struct Setup {
        let directory = TempDirectory("todo-answer-durability")
        let io = FaultyLogFileIO()
        let storage: TableStorage
        let service: TableService

        init() throws {
            storage = try TableStorage(directory: directory.sub("data"), clock: .live, tuning: .init(), io: io)
            var configuration = ServiceConfiguration()
            configuration.tables = ["todoitem", "other"]
            service = try TableService(configuration: configuration, storage: storage)
        }

        func answer(_ method: String, _ target: String, g2: Bool = true, body: String? = nil) -> HTTPAnswer {
            var headers: HTTPHeaders = g2 ? ["ZUMO-API-VERSION": "2.0.0"] : [:]
            if body != nil { headers.set(name: "Content-Type", value: "application/json") }
            return service.answer(to: HTTPRequest(method: method, target: target, headers: headers,
                                                  body: Array((body ?? "").utf8)))
        }

        func positions(_ table: String) -> (appended: UInt64, durable: UInt64) {
            storage.handle(table)!.commit.positions
        }

        func close() {
            storage.close()
            directory.remove()
        }
    }

    @Test func aWriteIsAnsweredBeforeItIsDurableWithATicketThatMakesItDurable() throws {
        let s = try Setup()
        defer { s.close() }
        let insert = s.answer("POST", "/tables/todoitem", body: #"{"id":"a","text":"one"}"#)
        #expect(insert.response.status == 201)
        #expect(!insert.ticket.isDurable)
        #expect(s.positions("todoitem").durable < s.positions("todoitem").appended)

        #expect(DurabilityTicket.settle([insert.ticket]) == [nil])
        #expect(s.positions("todoitem").durable == s.positions("todoitem").appended)
        #expect(insert.settled() == insert.response)
    }

    @Test func answersThatNeedNothingFromTheLogAreDurableAlready() throws {
        let s = try Setup()
        defer { s.close() }
        #expect(s.answer("OPTIONS", "/tables/todoitem").ticket.isDurable)
        #expect(s.answer("GET", "/nowhere").ticket.isDurable)
        // Nothing was appended since the log was opened: what a read sees is durable already.
        #expect(s.answer("GET", "/tables/todoitem").ticket.isDurable)
    }

    /// The answer to send when the ticket fails is the one a write gets when its own fsync fails
    /// (same status, body, headers, in the request's generation), decided with the answer.
    @Test func aFailingTicketYieldsTheFailureAnswerOfTheRequestsGeneration() throws {
        let s = try Setup()
        defer { s.close() }
        try s.storage.putTestRow("todoitem", "kept")
        FsyncFault.inject(s.storage, "todoitem")

        let g2 = s.answer("POST", "/tables/todoitem", body: #"{"id":"a"}"#)
        let g1 = s.answer("POST", "/tables/todoitem", g2: false, body: #"{"id":"b"}"#)
        #expect(g2.response.status == 201 && g1.response.status == 201)
        let failures = DurabilityTicket.settle([g2.ticket, g1.ticket])
        #expect(failures.allSatisfy { $0?.kind == .unavailable })

        let sentG2 = g2.response(settled: failures[0]), sentG1 = g1.response(settled: failures[1])
        #expect(sentG2.status == 503 && sentG1.status == 503)
        let message = (try? JSONValue.parse(sentG2.body))?["error"]?.stringValue ?? ""
        #expect(message.hasPrefix("The storage is unavailable: ") && message.contains("fsync failed"), "\(message)")
        #expect((try? JSONValue.parse(sentG1.body))?["code"] == .number(503))
        // A write refused at once, the table being poisoned now, is answered the same.
        let laterG2 = s.answer("POST", "/tables/todoitem", body: #"{"id":"c"}"#)
        let laterG1 = s.answer("POST", "/tables/todoitem", g2: false, body: #"{"id":"d"}"#)
        #expect(laterG2.settled() == sentG2)
        #expect(laterG1.settled() == sentG1)
    }

    /// Issue 17: reads answered before the fsync that failed, which saw the write (or whose
    /// snapshot held it), are refused with it; a read of another table is sent.
    @Test func aReadTicketCoveringAWriteThatDidNotBecomeDurableIsRefused() throws {
        let s = try Setup()
        defer { s.close() }
        // Through the service, so that the column `text` exists before the fault: the write that
        // fails then changes no schema, and only the reads' own tickets can refuse them.
        #expect(s.answer("POST", "/tables/todoitem", body: #"{"id":"kept","text":"durable"}"#).settled().status == 201)
        #expect(s.answer("POST", "/tables/other", body: #"{"id":"o"}"#).settled().status == 201)
        s.io.failSync(losingUnsyncedBytes: true)

        let answers = [
            s.answer("POST", "/tables/todoitem", body: #"{"id":"lost","text":"never durable"}"#),
            s.answer("GET", "/tables/todoitem/lost"),
            s.answer("GET", "/tables/todoitem?$filter=id%20eq%20'kept'"),
            s.answer("GET", "/tables/other/o"),
        ]
        #expect(answers.map(\.response.status) == [201, 200, 200, 200])
        #expect(String(decoding: answers[1].response.body, as: UTF8.self).contains("never durable"))

        let failures = DurabilityTicket.settle(answers.map(\.ticket))
        let sent = zip(answers, failures).map { $0.response(settled: $1) }
        #expect(sent.map(\.status) == [503, 503, 503, 200])
        #expect(!sent.contains { String(decoding: $0.body, as: UTF8.self).contains("never durable") })
    }

    /// PostgreSQL commits before it answers: its answers, writes and reads, wait for nothing.
    @Test func postgresAnswersAreDurableAlready() throws {
        let h = try TableServerHarness(backend: .postgres)
        let insert = h.service.answer(to: HTTPRequest(method: "POST", target: "/tables/todoitem",
                                                      headers: ["ZUMO-API-VERSION": "2.0.0", "Content-Type": "application/json"],
                                                      body: Array(#"{"id":"a","text":"one"}"#.utf8)))
        let read = h.service.answer(to: HTTPRequest(method: "GET", target: "/tables/todoitem/a",
                                                    headers: ["ZUMO-API-VERSION": "2.0.0"]))
        #expect(insert.response.status == 201 && insert.ticket.isDurable)
        #expect(read.response.status == 200 && read.ticket.isDurable)
    }
}
