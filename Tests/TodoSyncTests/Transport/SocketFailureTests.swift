#if canImport(Glibc)
import Glibc
#endif
import Testing
import TableProtocol
import TodoSync

/// Each way a request can fail, and whether the failure says the request may have landed.
struct SocketFailureTests {
    func transport(port: Int, connect: Double = 2, request: Double = 2) -> SocketTransport {
        SocketTransport(endpoint: RemoteEndpoint(scheme: .http, host: "127.0.0.1", port: port),
                        timeouts: TransportTimeouts(connect: connect, request: request))
    }

    @Test func refusedIsCannotConnectAndNothingWasSent() {
        let port = refusedPort()
        let failure = transport(port: port).send(Requests.get("/")).failure
        #expect(failure == .cannotConnect(endpoint: "127.0.0.1:\(port)", reason: "Connection refused"))
        #expect(failure?.mayHaveReachedServer == false)
        #expect(failure == .cannotConnect(endpoint: "127.0.0.1:\(port)", reason: "Connection refused"))
    }

    @Test func localhostFallsBackToIPv4() {
        // localhost may resolve to ::1 first; the server only listens on 127.0.0.1.
        let server = ScriptedServer { connection, _ in connection.echoUntilClosed() }
        defer { server.stop() }
        let transport = SocketTransport(endpoint: RemoteEndpoint(scheme: .http, host: "localhost", port: server.port))
        defer { transport.close() }
        #expect(transport.send(Requests.get("/x")).response?.text == "GET /x")
    }

    @Test func anUnknownHostIsCannotResolve() {
        let endpoint = RemoteEndpoint(scheme: .http, host: "no-such-host.invalid", port: 80)
        let failure = SocketTransport(endpoint: endpoint).send(Requests.get("/")).failure
        guard case .cannotResolve(let host, _)? = failure else {
            Issue.record("expected cannotResolve, got \(String(describing: failure))")
            return
        }
        #expect(host == "no-such-host.invalid")
        #expect(failure?.mayHaveReachedServer == false)
    }

    @Test func aFullBacklogIsAConnectTimeout() {
        // A listener that never accepts, its queue filled: further SYNs are dropped, connect hangs.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        let port = bindLoopback(listener)
        listen(listener, 0)
        var fillers: [Int32] = []
        defer { fillers.forEach { close($0) } }
        for _ in 0..<4 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            fillers.append(fd)
        }
        let (result, seconds) = timed { transport(port: port, connect: 0.3).send(Requests.get("/")) }
        #expect(result.failure == .cannotConnect(endpoint: "127.0.0.1:\(port)", reason: "no connection within 0.3 s"))
        #expect(seconds >= 0.29 && seconds < 2)
    }

    @Test func acceptAndCloseIsConnectionLostAfterSending() {
        let server = ScriptedServer { connection, _ in
            _ = connection.readRequest()
            connection.close()
        }
        defer { server.stop() }
        let failure = transport(port: server.port).send(Requests.insert("{}")).failure
        #expect(failure == .connectionLost(reason: "the server closed the connection without answering", requestSent: true))
        #expect(failure?.mayHaveReachedServer == true)
    }

    @Test func aResetMidResponseIsConnectionLost() {
        let server = ScriptedServer { connection, _ in
            _ = connection.readRequest()
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly a part")
            connection.reset()
        }
        defer { server.stop() }
        let failure = transport(port: server.port).send(Requests.insert("{}")).failure
        guard case .connectionLost(_, let sent)? = failure else {
            Issue.record("expected connectionLost, got \(String(describing: failure))")
            return
        }
        #expect(sent)
    }

    @Test func aCloseMidBodyIsConnectionLost() {
        let server = ScriptedServer { connection, _ in
            _ = connection.readRequest()
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly a part")
            connection.close()
        }
        defer { server.stop() }
        let failure = transport(port: server.port).send(Requests.get("/")).failure
        #expect(failure == .connectionLost(reason: "the server closed the connection in the middle of the response", requestSent: true))
    }

    @Test func aBodyUntilCloseIsAResponse() {
        let server = ScriptedServer { connection, _ in
            _ = connection.readRequest()
            connection.write("HTTP/1.1 200 OK\r\n\r\nall of it")
            connection.close()
        }
        defer { server.stop() }
        #expect(transport(port: server.port).send(Requests.get("/")).response?.text == "all of it")
    }

    @Test func aServerThatNeverAnswersTimesOut() {
        let server = ScriptedServer { connection, _ in
            _ = connection.readRequest()
            connection.waitForClientClose()
        }
        defer { server.stop() }
        let (result, seconds) = timed { transport(port: server.port, request: 0.3).send(Requests.insert("{}")) }
        #expect(result.failure == .timedOut(seconds: 0.3, requestSent: true))
        #expect(seconds >= 0.29 && seconds < 2)
    }

    @Test func garbageIsABadResponse() {
        let server = ScriptedServer { connection, _ in
            _ = connection.readRequest()
            connection.write("SSH-2.0-OpenSSH_9.2\r\n")
            connection.waitForClientClose()
        }
        defer { server.stop() }
        guard case .badResponse? = transport(port: server.port).send(Requests.get("/")).failure else {
            Issue.record("expected badResponse")
            return
        }
    }

    @Test func aServerGoneWhileSendingABigBodyDoesNotRaiseSIGPIPE() {
        // Were SIGPIPE raised, the test process would die here. Depending on when the reset
        // arrives, the connect or the write notices it.
        let server = ScriptedServer { connection, _ in connection.reset() }
        defer { server.stop() }
        let big = HTTPRequest(method: "POST", target: "/tables/todoitem", body: [UInt8](repeating: 0x61, count: 8 << 20))
        switch transport(port: server.port).send(big).failure {
        case .connectionLost?, .cannotConnect?: break
        case let other: Issue.record("expected connectionLost or cannotConnect, got \(String(describing: other))")
        }
    }
}
