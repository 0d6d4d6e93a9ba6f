import Dispatch
import Testing
import TableProtocol
import TodoSync

/// A request cut in the middle (its write stalls past the timeout) must never leave its bytes for
/// the next request on that connection: the server would read the tail of one request as the
/// start of the next and answer 400 (one suspect of the 400 seen once in the fault campaign,
/// seed 5300). The first connection's script never reads, so a reused connection would time out
/// again instead of answering.
@Suite struct CutRequestTests {
    static let big = HTTPRequest(method: "POST", target: "/tables/todoitem", headers: ["Content-Type": "application/json"],
                                 body: [UInt8](repeating: 0x61, count: 32 << 20))

    /// A server whose first connection never reads; the others echo.
    static func server(_ release: DispatchSemaphore) -> ScriptedServer {
        ScriptedServer { connection, index in
            if index == 0 {
                release.wait()
                connection.close()
            } else {
                connection.echoUntilClosed()
            }
        }
    }

    static func transport(_ server: ScriptedServer) -> SocketTransport {
        SocketTransport(endpoint: RemoteEndpoint(scheme: .http, host: "127.0.0.1", port: server.port),
                        timeouts: TransportTimeouts(connect: 2, request: 2))
    }

    @Test("send: after a write that timed out half-way, the next request goes on a new connection")
    func aCutSendIsNeverFollowedOnItsConnection() {
        let release = DispatchSemaphore(value: 0)
        let server = Self.server(release)
        defer { server.stop() }
        let transport = Self.transport(server)
        defer { transport.close() }
        #expect(transport.send(Self.big).failure == .timedOut(seconds: 2, requestSent: false))
        #expect(transport.send(Requests.get("/next")).response?.text == "GET /next")
        release.signal()
        #expect(server.accepted == 2)
    }

    @Test("pipelined: after a batch whose write timed out half-way, the next batch goes on a new connection")
    func aCutPipelineIsNeverFollowedOnItsConnection() {
        let release = DispatchSemaphore(value: 0)
        let server = Self.server(release)
        defer { server.stop() }
        let transport = Self.transport(server)
        defer { transport.close() }
        let cut = transport.sendPipelined([Self.big, Requests.get("/after")])
        #expect(cut.map(\.failure) == [.timedOut(seconds: 2, requestSent: false), .timedOut(seconds: 2, requestSent: false)])
        let next = transport.sendPipelined([Requests.get("/a"), Requests.get("/b")])
        #expect(next.map { $0.response?.text } == ["GET /a", "GET /b"])
        release.signal()
        #expect(server.accepted == 2)
    }
}
