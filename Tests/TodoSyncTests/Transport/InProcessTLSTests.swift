import Testing
import TableProtocol
import TodoBasics
import TodoModel
@testable import TodoSync
import TodoTestSupport

/// Issue 20 item 2: https inside `todo` (the system's OpenSSL, loaded at run time), with the same
/// pool and pipelining as http. A real table server behind a real TLS terminator (TLSFixture), a
/// throwaway CA that no system store holds. The environment names a helper that does not exist,
/// so a request that went through the helper would fail: everything here is in-process.
@Suite(.enabled(if: TLSFixture.canTerminate, "needs python3 and openssl"))
struct InProcessTLSTests {
    static let noHelper = ["TODO_REMOTE_HELPER": "/nonexistent/todo-remote-https"]
    static let timeouts = TransportTimeouts(connect: 5, request: 10)

    /// Rows on the server, asked over plain http (behind the terminator).
    static func rows(_ server: LiveTableServer) throws -> Int {
        let transport = SocketTransport(endpoint: server.endpoint)
        defer { transport.close() }
        let page = try transport.send(Requests.get("/tables/todoitem?$top=1&$inlinecount=allpages")).get()
        return try JSONValue.parse(page.body)["count"]?.intValue ?? -1
    }

    static func transport(_ tls: TLSFixture, caFile: String?, host: String = "127.0.0.1") -> any HTTPTransport {
        Transports.make(endpoint: RemoteEndpoint(scheme: .https, host: host, port: tls.port), timeouts: timeouts,
                        caFile: caFile, environment: noHelper)
    }

    static let untrusted = TLSTrouble.untrusted(detail: "unable to get local issuer certificate")

    @Test func httpsCarriesPipelinedAndSingleRequestsInProcess() throws {
        let server = try LiveTableServer()
        let tls = try TLSFixture(backendPort: server.port, privateCA: true)
        defer { tls.stop() }
        let transport = Self.transport(tls, caFile: tls.caFile)
        defer { transport.close() }
        #expect(transport.pipelines, "https pipelines like http")

        let inserts = (0..<300).map { Requests.insert(#"{"id":"p\#($0)","text":"\#(String(repeating: "x", count: 200))"}"#) }
        let results = transport.sendPipelined(inserts)
        #expect(results.allSatisfy { $0.response?.status == 201 }, "\(String(describing: results.compactMap(\.failure).first))")
        #expect(try Self.rows(server) == 300)

        // Single requests on the pooled connection: read, PATCH and DELETE with If-Match.
        let read = try #require(transport.send(Requests.get("/tables/todoitem/p7")).response)
        #expect(read.status == 200)
        let version = try #require(read.headers["ETag"])
        let patch = HTTPRequest(method: "PATCH", target: "/tables/todoitem/p7",
                                headers: ["ZUMO-API-VERSION": "2.0.0", "Content-Type": "application/json", "If-Match": version],
                                body: Array(#"{"text":"changed"}"#.utf8))
        #expect(transport.send(patch).response?.status == 200)
        let stale = HTTPRequest(method: "DELETE", target: "/tables/todoitem/p7", headers: ["ZUMO-API-VERSION": "2.0.0", "If-Match": version])
        #expect(transport.send(stale).response?.status == 412, "If-Match reached the server")
        // A large answer (many TLS records) comes back whole.
        let page = try #require(transport.send(Requests.get("/tables/todoitem?$top=300")).response)
        #expect(try JSONValue.parse(page.body).arrayValue?.count == 300, "\(page.status) \(page.body.count) bytes")
        #expect(try JSONValue.parse(try #require(transport.send(Requests.get("/tables/todoitem/p7")).response).body)["text"]?.stringValue == "changed")
    }

    /// A push's batches over 16 connections at once, as `todo push` deals them over https: every
    /// insert lands and every answer belongs to its request, and the batches after the first reuse
    /// the connections (16 TLS handshakes in all, not some per batch).
    @Test func batchesOverSixteenConnectionsReuseThemAndEveryAnswerMatchesItsRequest() throws {
        let server = try LiveTableServer()
        let tls = try TLSFixture(backendPort: server.port, privateCA: true)
        defer { tls.stop() }
        let transport = Self.transport(tls, caFile: tls.caFile)
        defer { transport.close() }
        let mismatched = Scripted.Counter()
        for batch in 0..<4 {
            onThreads(16) { lane in
                let ids = (0..<20).map { "b\(batch)-l\(lane)-\($0)" }
                let results = transport.sendPipelined(ids.map { Requests.insert(#"{"id":"\#($0)","text":"x"}"#) })
                for (id, result) in zip(ids, results) {
                    let answered = result.response.flatMap { try? JSONValue.parse($0.body)["id"]?.stringValue }
                    if result.response?.status != 201 || answered != id { _ = mismatched.next() }
                }
            }
        }
        #expect(mismatched.count == 0, "every insert got its own 201")
        #expect(try Self.rows(server) == 4 * 16 * 20)
        #expect(tls.acceptedConnections <= 16, "\(tls.acceptedConnections) TLS handshakes for 16 connections")
    }

    @Test func anUnknownCAIsRefusedWithTheFixAndNothingIsSent() throws {
        let server = try LiveTableServer()
        let tls = try TLSFixture(backendPort: server.port, privateCA: true)
        defer { tls.stop() }
        let other = try TLSFixture(backendPort: server.port, privateCA: true)
        defer { other.stop() }
        for caFile in [nil, other.caFile] {
            let transport = Self.transport(tls, caFile: caFile)
            defer { transport.close() }
            let failure = transport.send(Requests.insert(#"{"id":"a","text":"one"}"#)).failure
            #expect(failure?.tlsTrouble == Self.untrusted, "\(String(describing: failure))")
            #expect(failure?.mayHaveReachedServer == false)
            let batch = transport.sendPipelined([Requests.insert(#"{"id":"b","text":"two"}"#), Requests.insert(#"{"id":"c","text":"3"}"#)])
            #expect(batch.allSatisfy { $0.failure?.tlsTrouble == Self.untrusted && $0.failure?.mayHaveReachedServer == false })
        }
        #expect(try Self.rows(server) == 0, "nothing reached the server")
    }

    @Test func aCertificateForAnotherHostIsRefused() throws {
        let server = try LiveTableServer()
        let tls = try TLSFixture(backendPort: server.port, privateCA: true, names: "DNS:elsewhere.example")
        defer { tls.stop() }
        for host in ["127.0.0.1", "localhost"] {
            let transport = Self.transport(tls, caFile: tls.caFile, host: host)
            defer { transport.close() }
            let failure = transport.send(Requests.insert(#"{"id":"a","text":"one"}"#)).failure
            #expect(failure?.tlsTrouble == .wrongHost, "\(host): \(String(describing: failure))")
            #expect(failure?.mayHaveReachedServer == false)
        }
        #expect(try Self.rows(server) == 0)
    }

    @Test func plainHTTPOnTheHTTPSPortSaysSo() throws {
        let server = try LiveTableServer()
        let transport = Transports.make(endpoint: RemoteEndpoint(scheme: .https, host: "127.0.0.1", port: server.port),
                                        timeouts: Self.timeouts, environment: Self.noHelper)
        defer { transport.close() }
        let failure = transport.send(Requests.insert(#"{"id":"a","text":"one"}"#)).failure
        #expect(failure?.tlsTrouble == .notTLS, "\(String(describing: failure))")
        #expect(failure?.mayHaveReachedServer == false)
        #expect(try Self.rows(server) == 0)
    }

    @Test func aCAFileThatCannotBeLoadedNamesTheFixAndSendsNothing() throws {
        let server = try LiveTableServer()
        let tls = try TLSFixture(backendPort: server.port, privateCA: true)
        defer { tls.stop() }
        try LocalFileSystem().writeFile(tls.directory.sub("empty.pem"), Array("no certificate here\n".utf8), sync: false)
        for name in ["gone.pem", "empty.pem"] {
            let transport = Self.transport(tls, caFile: tls.directory.sub(name))
            defer { transport.close() }
            let failure = transport.send(Requests.get("/tables/todoitem")).failure
            guard case .unusableCAFile(let reason)? = failure?.tlsTrouble else {
                Issue.record("expected an unusable CA file, got \(String(describing: failure))")
                continue
            }
            #expect(reason.hasPrefix("cannot load the CA file \(tls.directory.sub(name)): "), "\(reason)")
            #expect(failure?.mayHaveReachedServer == false)
        }
    }
}
