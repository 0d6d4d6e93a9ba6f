#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization
import Testing
import TableProtocol
import TodoModel
import TodoSync

struct SocketTransportTests {
    static let quick = TransportTimeouts(connect: 2, request: 2)

    func transport(_ server: ScriptedServer, timeouts: TransportTimeouts = quick) -> SocketTransport {
        SocketTransport(endpoint: RemoteEndpoint(scheme: .http, host: "127.0.0.1", port: server.port), timeouts: timeouts)
    }

    // MARK: - Against the real table server

    @Test func insertsAndReadsBackFromTheTableServer() throws {
        let server = try LiveTableServer()
        let transport = SocketTransport(endpoint: server.endpoint, timeouts: Self.quick)
        defer { transport.close() }
        let inserted = try #require(transport.send(Requests.insert(#"{"id":"a","text":"milk"}"#)).response)
        #expect(inserted.status == 201)
        let read = try #require(transport.send(Requests.get("/tables/todoitem/a")).response)
        #expect(read.status == 200)
        let item = try JSONValue.parse(read.body)
        #expect(item["text"]?.stringValue == "milk")
        #expect(read.headers["ETag"] != nil)
        let missing = try #require(transport.send(Requests.get("/tables/todoitem/nope")).response)
        #expect(missing.status == 404, "an HTTP error status is a response, not a transport failure")
    }

    @Test func eightThreadsShareTheTableServer() throws {
        let server = try LiveTableServer()
        let transport = SocketTransport(endpoint: server.endpoint, timeouts: Self.quick)
        defer { transport.close() }
        let statuses = Mutex<[Int]>([])
        onThreads(8) { thread in
            for i in 0..<10 {
                let status = transport.send(Requests.insert(#"{"id":"t\#(thread)-\#(i)"}"#)).response?.status ?? 0
                statuses.withLock { $0.append(status) }
            }
        }
        #expect(statuses.withLock { $0 } == Array(repeating: 201, count: 80))
        let page = try #require(transport.send(Requests.get("/tables/todoitem?$top=100")).response)
        #expect(try JSONValue.parse(page.body).arrayValue?.count == 80)
    }

    // MARK: - Connections

    @Test func keepAliveReusesOneConnection() {
        let server = ScriptedServer { connection, _ in connection.echoUntilClosed() }
        defer { server.stop() }
        let transport = transport(server)
        defer { transport.close() }
        for i in 0..<5 {
            #expect(transport.send(Requests.get("/r\(i)")).response?.text == "GET /r\(i)")
        }
        #expect(server.accepted == 1)
    }

    @Test func connectionCloseIsHonoured() {
        // The server says close but leaves the socket open: only the header can tell the client.
        let server = ScriptedServer { connection, _ in
            while connection.readRequest() != nil { connection.respond("bye", headers: "Connection: close\r\n") }
        }
        defer { server.stop() }
        let transport = transport(server)
        defer { transport.close() }
        #expect(transport.send(Requests.get("/1")).response?.text == "bye")
        #expect(transport.send(Requests.get("/2")).response?.text == "bye")
        #expect(server.accepted == 2)
    }

    @Test func anHTTP10ResponseIsNotReused() {
        let server = ScriptedServer { connection, _ in
            while connection.readRequest() != nil { connection.write("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok") }
        }
        defer { server.stop() }
        let transport = transport(server)
        defer { transport.close() }
        #expect(transport.send(Requests.get("/1")).response?.text == "ok")
        #expect(transport.send(Requests.get("/2")).response?.text == "ok")
        #expect(server.accepted == 2)
    }

    @Test func aRequestAskingToCloseIsNotPooled() {
        let server = ScriptedServer { connection, _ in connection.echoUntilClosed() }
        defer { server.stop() }
        let transport = transport(server)
        defer { transport.close() }
        var request = Requests.get("/1")
        request.headers["Connection"] = "close"
        #expect(transport.send(request).response != nil)
        #expect(transport.send(Requests.get("/2")).response != nil)
        #expect(server.accepted == 2)
    }

    @Test func eightThreadsEachGetTheirOwnConnectionAndAnswer() {
        let server = ScriptedServer { connection, _ in connection.echoUntilClosed() }
        defer { server.stop() }
        let transport = transport(server)
        defer { transport.close() }
        let wrong = Mutex(0)
        onThreads(8) { thread in
            for i in 0..<25 {
                let text = transport.send(Requests.get("/t\(thread)/\(i)")).response?.text
                if text != "GET /t\(thread)/\(i)" { wrong.withLock { $0 += 1 } }
            }
        }
        #expect(wrong.withLock { $0 } == 0, "every thread got the answer to its own request")
        #expect(server.requests == 200)
        #expect((1...8).contains(server.accepted), "at most one connection per thread, all reused")
    }

    @Test func aPooledConnectionTheServerClosedIsNotReused() {
        let closed = DispatchSemaphore(value: 0)
        let server = ScriptedServer { connection, index in
            if index == 0 {
                // Like an idle timeout: answer as keep-alive, then close.
                _ = connection.readRequest()
                connection.respond("first")
                connection.close()
                closed.signal()
            } else {
                connection.echoUntilClosed()
            }
        }
        defer { server.stop() }
        let transport = transport(server)
        defer { transport.close() }
        #expect(transport.send(Requests.get("/1")).response?.text == "first")
        closed.wait()
        // A POST is never retried, so only the check before reuse can make this succeed.
        let second = transport.send(Requests.insert("{}"))
        #expect(second.response?.text == "POST /tables/todoitem")
        #expect(server.accepted == 2)
    }

    @Test func aGETIsRetriedOnceWhenAReusedConnectionDiesUnanswered() {
        let server = ScriptedServer { connection, index in
            if index == 0 {
                _ = connection.readRequest()
                connection.respond("first")
                _ = connection.readRequest()  // the second request arrives, then the server goes away
                connection.close()
            } else {
                connection.echoUntilClosed()
            }
        }
        defer { server.stop() }
        let transport = transport(server)
        defer { transport.close() }
        #expect(transport.send(Requests.get("/1")).response?.text == "first")
        #expect(transport.send(Requests.get("/2")).response?.text == "GET /2")
        #expect(server.accepted == 2)
    }

    @Test func aPOSTIsNotRetriedWhenAReusedConnectionDiesUnanswered() {
        let server = ScriptedServer { connection, index in
            _ = connection.readRequest()
            connection.respond("first")
            _ = connection.readRequest()
            connection.close()
        }
        defer { server.stop() }
        let transport = transport(server)
        defer { transport.close() }
        #expect(transport.send(Requests.get("/1")).response?.text == "first")
        let failure = transport.send(Requests.insert("{}")).failure
        #expect(failure == .connectionLost(reason: "the server closed the connection without answering", requestSent: true))
        #expect(failure?.mayHaveReachedServer == true)
        #expect(server.accepted == 1)
    }
}
