#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Testing
import TableProtocol
import TodoModel
import TodoSync

/// `SocketTransport.sendPipelined`: many requests on one connection, answers matched in order,
/// and for every way the connection can end early, each unanswered request says whether it
/// may have reached the server.
struct PipelinedTransportTests {
    func transport(_ server: ScriptedServer, request: Double = 2) -> SocketTransport {
        SocketTransport(endpoint: RemoteEndpoint(scheme: .http, host: "127.0.0.1", port: server.port),
                        timeouts: TransportTimeouts(connect: 2, request: request))
    }

    static func gets(_ count: Int) -> [HTTPRequest] { (0..<count).map { Requests.get("/r\($0)") } }

    @Test func everyRequestIsWrittenBeforeTheFirstAnswerAndAnswersKeepTheirOrder() {
        // The script reads all five requests before it answers any: a client that waited for
        // each answer before sending the next request would time out here.
        let server = ScriptedServer { connection, _ in
            let requests = (0..<5).compactMap { _ in connection.readRequest() }
            for request in requests { connection.respond("\(request.method) \(request.target)") }
            connection.waitForClientClose()
        }
        defer { server.stop() }
        let transport = transport(server)
        defer { transport.close() }
        let results = transport.sendPipelined(Self.gets(5))
        #expect(results.map { $0.response?.text } == (0..<5).map { "GET /r\($0)" })
        #expect(server.accepted == 1)
    }

    @Test func theConnectionIsReusedAfterAPipeline() {
        let server = ScriptedServer { connection, _ in connection.echoUntilClosed() }
        defer { server.stop() }
        let transport = transport(server)
        defer { transport.close() }
        #expect(transport.sendPipelined(Self.gets(3)).map { $0.response?.text } == ["GET /r0", "GET /r1", "GET /r2"])
        #expect(transport.sendPipelined(Self.gets(2)).map { $0.response?.text } == ["GET /r0", "GET /r1"])
        #expect(transport.send(Requests.get("/x")).response?.text == "GET /x")
        #expect(server.accepted == 1)
        #expect(transport.pipelines)
    }

    @Test func fiftyInsertsOnOneConnectionAllLandOnTheTableServer() throws {
        let server = try LiveTableServer()
        let transport = SocketTransport(endpoint: server.endpoint, timeouts: TransportTimeouts(connect: 2, request: 5))
        defer { transport.close() }
        let inserts = (0..<50).map { Requests.insert(#"{"id":"p\#($0)","text":"n\#($0)"}"#) }
        let results = transport.sendPipelined(inserts)
        #expect(results.map { $0.response?.status } == Array(repeating: 201, count: 50))
        for (i, result) in results.enumerated() {
            let body = try JSONValue.parse(try #require(result.response).body)
            #expect(body["id"]?.stringValue == "p\(i)", "answer \(i) belongs to request \(i)")
        }
        let page = try #require(transport.send(Requests.get("/tables/todoitem?$top=100")).response)
        #expect(try JSONValue.parse(page.body).arrayValue?.count == 50)
    }

    @Test func bigRequestsAndAnswersBothWaysDoNotDeadlock() {
        // 4 MB each way: more than the socket buffers hold, so the client must read answers
        // while it is still writing requests.
        let body = String(repeating: "x", count: 20_000)
        let server = ScriptedServer { connection, _ in
            while let request = connection.readRequest() { connection.respond(String(decoding: request.body, as: UTF8.self)) }
            connection.close()
        }
        defer { server.stop() }
        let transport = transport(server, request: 5)
        defer { transport.close() }
        let results = transport.sendPipelined((0..<200).map { _ in Requests.insert(body) })
        #expect(results.allSatisfy { $0.response?.body.count == 20_000 })
    }

    @Test func aConnectionClosedMidwayFailsTheRestAsPossiblyDelivered() {
        let server = ScriptedServer { connection, _ in
            let requests = (0..<4).compactMap { _ in connection.readRequest() }
            for request in requests.prefix(2) { connection.respond(request.target) }
            connection.close()
        }
        defer { server.stop() }
        let transport = transport(server)
        defer { transport.close() }
        let results = transport.sendPipelined(Self.gets(4))
        #expect(results.prefix(2).map { $0.response?.text } == ["/r0", "/r1"])
        let lost = TransportFailure.connectionLost(reason: "the server closed the connection in the middle of the answers", requestSent: true)
        #expect(results.suffix(2).map(\.failure) == [lost, lost])
    }

    @Test func connectionCloseOnAnAnswerFailsTheRequestsBehindIt() {
        let server = ScriptedServer { connection, _ in
            let requests = (0..<3).compactMap { _ in connection.readRequest() }
            connection.respond(requests[0].target, headers: "Connection: close\r\n")
            connection.waitForClientClose()
        }
        defer { server.stop() }
        let transport = transport(server)
        defer { transport.close() }
        let results = transport.sendPipelined(Self.gets(3))
        #expect(results[0].response?.text == "/r0")
        let lost = TransportFailure.connectionLost(reason: "the server closed the connection after answering an earlier request", requestSent: true)
        #expect(results[1].failure == lost)
        #expect(results[2].failure == lost)
    }

    @Test func aStalledServerTimesOutEveryUnansweredRequest() {
        let server = ScriptedServer { connection, _ in
            let requests = (0..<3).compactMap { _ in connection.readRequest() }
            connection.respond(requests[0].target)
            connection.waitForClientClose()
        }
        defer { server.stop() }
        let transport = transport(server, request: 0.3)
        defer { transport.close() }
        let results = transport.sendPipelined(Self.gets(3))
        #expect(results[0].response?.text == "/r0")
        #expect(results[1].failure == .timedOut(seconds: 0.3, requestSent: true))
        #expect(results[2].failure == .timedOut(seconds: 0.3, requestSent: true))
    }

    @Test func aMalformedAnswerEndsThePipeline() {
        let server = ScriptedServer { connection, _ in
            _ = (0..<2).compactMap { _ in connection.readRequest() }
            connection.write("NOT HTTP\r\n\r\n")
            connection.waitForClientClose()
        }
        defer { server.stop() }
        let transport = transport(server)
        defer { transport.close() }
        let results = transport.sendPipelined(Self.gets(2))
        guard case .badResponse? = results[0].failure else {
            Issue.record("expected a bad response, got \(results[0])")
            return
        }
        #expect(results[1].failure == .connectionLost(reason: "an earlier answer on the connection was not valid HTTP", requestSent: true))
        #expect(results[1].failure?.mayHaveReachedServer == true)
    }

    @Test func aRefusedConnectionFailsEveryRequestAsNotSent() {
        let transport = SocketTransport(endpoint: RemoteEndpoint(scheme: .http, host: "127.0.0.1", port: refusedPort()),
                                        timeouts: TransportTimeouts(connect: 2, request: 2))
        let results = transport.sendPipelined(Self.gets(3))
        #expect(results.count == 3)
        #expect(results.allSatisfy { $0.failure?.mayHaveReachedServer == false })
    }

    @Test func onADeadPooledConnectionOnlyWhatCannotHaveLandedOrIsSafeGoesAgain() {
        let server = ScriptedServer { connection, index in
            if index == 0 {
                _ = connection.readRequest()
                connection.respond("first")
                _ = (0..<2).compactMap { _ in connection.readRequest() }  // both arrive, then the server goes away
                connection.close()
            } else {
                connection.echoUntilClosed()
            }
        }
        defer { server.stop() }
        let transport = transport(server)
        defer { transport.close() }
        #expect(transport.send(Requests.get("/1")).response?.text == "first")
        let results = transport.sendPipelined([Requests.get("/2"), Requests.insert("{}")])
        #expect(results[0].response?.text == "GET /2", "a GET is safe to repeat on a fresh connection")
        #expect(results[1].failure == .connectionLost(reason: "the server closed the connection without answering", requestSent: true),
                "a POST that went out may have landed: it is not repeated")
        #expect(server.accepted == 2)
    }

    @Test func sixteenConnectionsBusyAtOnceAreAllKeptForTheNextBatch() {
        // An https push deals each batch over 16 connections (issue 20). No script answers before
        // all 16 are open, so the first batch holds 16 at once; the second must find every one of
        // them in the pool: one closed on the way back is opened again, with a new TLS handshake.
        let opened = Scripted.Counter()
        let server = ScriptedServer { connection, _ in
            _ = opened.next()
            while let request = connection.readRequest() {
                for _ in 0..<500 where opened.count < 16 { usleep(10_000) }
                connection.respond("\(request.method) \(request.target)")
            }
            connection.close()
        }
        defer { server.stop() }
        let transport = transport(server, request: 10)
        defer { transport.close() }
        let wrong = Scripted.Counter()
        for batch in 0..<2 {
            onThreads(16) { lane in
                let targets = ["/\(batch)/\(lane)/a", "/\(batch)/\(lane)/b"]
                let answers = transport.sendPipelined(targets.map { Requests.get($0) }).map { $0.response?.text }
                if answers != targets.map({ "GET \($0)" }) { _ = wrong.next() }
            }
        }
        #expect(wrong.count == 0, "every answer came back to its request")
        #expect(server.accepted == 16, "the second batch reused the first batch's 16 connections")
    }

    @Test func oneRequestIsAnOrdinarySend() {
        let server = ScriptedServer { connection, _ in connection.echoUntilClosed() }
        defer { server.stop() }
        let transport = transport(server)
        defer { transport.close() }
        #expect(transport.sendPipelined([Requests.get("/only")]).map { $0.response?.text } == ["GET /only"])
        #expect(transport.sendPipelined([]).isEmpty)
    }
}
