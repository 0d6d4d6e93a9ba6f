#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
import TableProtocol
import TodoBasics
import TodoModel
@testable import TodoSync

/// The https path without TLS: the built `todo-remote-https` helper over http, end to end.
@Suite(.enabled(if: LocalFileSystem().fileExists(HelperBinary.path), "build todo-remote-https first (swift build)"))
struct HelperTransportTests {
    static let quick = TransportTimeouts(connect: 2, request: 2)

    func transport(port: Int, timeouts: TransportTimeouts = quick) -> HelperTransport {
        HelperTransport(endpoint: RemoteEndpoint(scheme: .http, host: "127.0.0.1", port: port),
                        timeouts: timeouts, helperPath: HelperBinary.path)
    }

    @Test func insertsAndReadsBackFromTheTableServer() throws {
        let server = try LiveTableServer()
        let transport = transport(port: server.port)
        defer { transport.close() }
        let inserted = try #require(transport.send(Requests.insert(#"{"id":"a","text":"milk"}"#)).response)
        #expect(inserted.status == 201)
        #expect(inserted.headers["Location"]?.hasSuffix("/tables/todoitem/a") == true)
        let read = try #require(transport.send(Requests.get("/tables/todoitem/a")).response)
        #expect(read.status == 200)
        #expect(try JSONValue.parse(read.body)["text"]?.stringValue == "milk")
        #expect(read.headers["ETag"] == inserted.headers["ETag"])
        #expect(transport.send(Requests.get("/tables/todoitem/nope")).response?.status == 404)
    }

    @Test func oneHelperServesSequentialRequestsOnOneConnection() {
        let server = ScriptedServer { connection, _ in connection.echoUntilClosed() }
        defer { server.stop() }
        let transport = transport(port: server.port)
        defer { transport.close() }
        for i in 0..<4 {
            #expect(transport.send(Requests.get("/r\(i)?a=%20b")).response?.text == "GET /r\(i)?a=%20b")
        }
        #expect(server.accepted == 1, "the helper stays, and so does its keep-alive connection")
    }

    @Test func sendPipelinedSendsOneAfterTheOtherAndSaysSo() {
        let server = ScriptedServer { connection, _ in connection.echoUntilClosed() }
        defer { server.stop() }
        let transport = transport(port: server.port)
        defer { transport.close() }
        #expect(!transport.pipelines, "a push opens more connections instead")
        #expect(transport.sendPipelined([Requests.get("/a"), Requests.get("/b")]).map { $0.response?.text } == ["GET /a", "GET /b"])
    }

    @Test func eightThreadsEachGetAHelper() throws {
        let server = try LiveTableServer()
        let transport = transport(port: server.port)
        defer { transport.close() }
        let statuses = Mutex<[Int]>([])
        onThreads(8) { thread in
            for i in 0..<3 {
                let status = transport.send(Requests.insert(#"{"id":"h\#(thread)-\#(i)"}"#)).response?.status ?? 0
                statuses.withLock { $0.append(status) }
            }
        }
        #expect(statuses.withLock { $0 } == Array(repeating: 201, count: 24))
        let page = try #require(transport.send(Requests.get("/tables/todoitem")).response)
        #expect(try JSONValue.parse(page.body).arrayValue?.count == 24)
    }

    @Test func redirectsAreReturnedNotFollowed() {
        let server = ScriptedServer { connection, _ in
            while let request = connection.readRequest() {
                if request.target == "/moved" {
                    connection.respond("see elsewhere", status: "302 Found", headers: "Location: /elsewhere\r\n")
                } else {
                    connection.respond("followed!")
                }
            }
            connection.close()
        }
        defer { server.stop() }
        let transport = transport(port: server.port)
        defer { transport.close() }
        let response = transport.send(Requests.get("/moved")).response
        #expect(response?.status == 302)
        #expect(response?.headers["Location"] == "/elsewhere")
        #expect(server.requests == 1)
    }

    @Test func aServerCannotFakeATransportFailure() {
        let server = ScriptedServer { connection, _ in
            while connection.readRequest() != nil {
                connection.respond("", status: "599 Odd", headers: "X-Todo-Transport-Failure: cannot-connect; request-sent=no\r\n")
            }
            connection.close()
        }
        defer { server.stop() }
        let transport = transport(port: server.port)
        defer { transport.close() }
        let response = transport.send(Requests.get("/"))
        #expect(response.response?.status == 599)
        #expect(response.response?.headers["X-Todo-Transport-Failure"] == nil)
    }

    // MARK: - Failures

    @Test func refusedIsCannotConnect() {
        let port = refusedPort()
        let failure = transport(port: port).send(Requests.get("/")).failure
        guard case .cannotConnect(let endpoint, _)? = failure else {
            Issue.record("expected cannotConnect, got \(String(describing: failure))")
            return
        }
        #expect(endpoint == "127.0.0.1:\(port)")
        #expect(failure?.mayHaveReachedServer == false)
    }

    @Test func acceptAndCloseIsConnectionLostAfterSending() {
        let server = ScriptedServer { connection, _ in
            _ = connection.readRequest()
            connection.close()
        }
        defer { server.stop() }
        let failure = transport(port: server.port).send(Requests.insert("{}")).failure
        #expect(failure == .connectionLost(reason: "the server closed the connection without answering", requestSent: true))
    }

    @Test func aServerThatNeverAnswersTimesOut() {
        let server = ScriptedServer { connection, _ in
            _ = connection.readRequest()
            connection.waitForClientClose()
        }
        defer { server.stop() }
        let timeouts = TransportTimeouts(connect: 0.3, request: 0.3)
        let (result, seconds) = timed { transport(port: server.port, timeouts: timeouts).send(Requests.get("/")) }
        #expect(result.failure == .timedOut(seconds: 0.3, requestSent: true))
        #expect(seconds < 3)
    }

    @Test func aMissingHelperIsAClearErrorAndNothingIsSent() {
        let transport = HelperTransport(endpoint: RemoteEndpoint(scheme: .https, host: "example.com"),
                                        helperPath: "/nonexistent/todo-remote-https")
        let failure = transport.send(Requests.get("/"))
        #expect(failure.failure == .helperUnavailable(
            endpoint: "example.com:443", .cannotStart(path: "/nonexistent/todo-remote-https", reason: "No such file or directory")))
        #expect(failure.failure?.mayHaveReachedServer == false)
    }

    @Test func aHelperThatDiesAtOnceIsReported() {
        let transport = HelperTransport(endpoint: RemoteEndpoint(scheme: .https, host: "example.com"), helperPath: "/bin/false")
        // Whether the write or the read notices first, the failure says how the helper ended.
        switch transport.send(Requests.get("/")).failure {
        case .helperUnavailable(let endpoint, let launch)?:
            #expect(endpoint == "example.com:443")
            #expect(launch == .endedBeforeTheRequest("exit status 1"))
        case .connectionLost(let reason, _)?:
            #expect(reason.contains("todo-remote-https"))
            #expect(reason.contains("ended (exit status 1)"))
        case let other:
            Issue.record("not a helper failure: \(String(describing: other))")
        }
    }

    // MARK: - Finding the helper

    @Test func theEnvironmentVariableWins() throws {
        #expect(try HelperTransport.locateHelper(environment: ["TODO_REMOTE_HELPER": "/opt/x/helper"]).get() == "/opt/x/helper")
    }

    @Test func theHelperIsFoundNextToTheRunningExecutable() throws {
        let beside = HelperBinary.path.parentPath.appendingPath("todo")
        let found = try HelperProcess.locate(environment: ["PATH": "/nonexistent"], runningExecutable: beside).get()
        #expect(found == HelperBinary.path)
    }

    @Test func theHelperIsFoundOnPATH() throws {
        let path = "/nonexistent:\(HelperBinary.path.parentPath)"
        let found = try HelperProcess.locate(environment: ["PATH": path], runningExecutable: "/nonexistent/todo").get()
        #expect(found == HelperBinary.path)
    }

    @Test func aHelperNowhereToBeFoundIsNotFound() {
        let result = HelperProcess.locate(environment: ["PATH": "/nonexistent"], runningExecutable: "/nonexistent/todo")
        #expect(throws: HelperLaunchFailure.notFound) { try result.get() }
    }

    @Test func theRunningExecutableIsKnown() {
        #expect(HelperProcess.runningExecutable()?.hasPrefix("/") == true)
    }

    @Test func transportsPicksByScheme() {
        let http = RemoteEndpoint(scheme: .http, host: "127.0.0.1", port: 8080)
        let https = RemoteEndpoint(scheme: .https, host: "example.com")
        let timeouts = TransportTimeouts()
        #expect(Transports.make(endpoint: http, timeouts: timeouts, environment: [:]) is SocketTransport)
        #expect(Transports.make(endpoint: https, timeouts: timeouts, environment: [:]) is SocketTransport,
                "https runs inside todo where OpenSSL 3 loads (it does on every machine that runs these tests)")
        #expect(Transports.make(endpoint: https, timeouts: timeouts, environment: ["TODO_REMOTE_HELPER_FOR_HTTPS": "1"]) is HelperTransport)
        #expect(Transports.make(endpoint: http, timeouts: timeouts, environment: ["TODO_REMOTE_HELPER_FOR_HTTP": "1"]) is HelperTransport)
    }

    @Test func transportsWithTheHelperForHTTPWorkEndToEnd() throws {
        let server = try LiveTableServer()
        let environment = ["TODO_REMOTE_HELPER_FOR_HTTP": "1", "TODO_REMOTE_HELPER": HelperBinary.path]
        let transport = Transports.make(endpoint: server.endpoint, timeouts: Self.quick, environment: environment)
        defer { transport.close() }
        #expect(transport.send(Requests.insert(#"{"id":"via-helper"}"#)).response?.status == 201)
    }
}
