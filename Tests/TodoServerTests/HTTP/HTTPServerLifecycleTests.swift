#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization
import Testing
import TableProtocol
@testable import TodoServer

/// Start, graceful stop, and termination signals.
@Suite("HTTP server: life cycle")
struct HTTPServerLifecycleTests {
    @Test("stop() during a slow request: the response still arrives, then the port refuses connections")
    func gracefulStop() throws {
        let harness = try HTTPServerHarness()
        let client = try harness.client()
        try client.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(harness.slowStarted.wait(timeout: .now() + 5) == .success)

        let stopped = DispatchSemaphore(value: 0)
        try ServerThread.spawn {
            harness.server.stop()
            stopped.signal()
        }
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.bodyText == "slow done")
        #expect(response.headers["Connection"] == "close")
        #expect(stopped.wait(timeout: .now() + 10) == .success)
        #expect(!RawHTTPClient.canConnect(port: harness.port))
    }

    @Test("stop() closes idle keep-alive connections without waiting for the idle timeout")
    func stopClosesIdle() throws {
        let harness = try HTTPServerHarness { $0.idleTimeout = .seconds(60) }
        let clients = try (0..<20).map { _ in try harness.client(receiveTimeout: .seconds(5)) }
        for (index, client) in clients.enumerated() where index % 2 == 0 {
            #expect(try client.get("/before").status == 200)
        }
        let stopped = DispatchSemaphore(value: 0)
        try ServerThread.spawn {
            harness.server.stop()
            stopped.signal()
        }
        #expect(stopped.wait(timeout: .now() + 5) == .success, "well before the 60 s idle timeout")
        for client in clients {
            #expect(client.readUntilClosed() == [])
        }
        #expect(!RawHTTPClient.canConnect(port: harness.port))
    }

    @Test("stop() is idempotent, and a stopped server does not start again")
    func stopTwice() throws {
        let harness = try HTTPServerHarness()
        harness.server.stop()
        harness.server.stop()
        #expect(throws: HTTPServerError(operation: "start", code: 0, reason: "the server was already started")) {
            try harness.server.start()
        }
    }

    @Test("stop() on a server that never started changes nothing: it returns, and the server still starts and serves")
    func stopUnstarted() throws {
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        let server = HTTPServer(
            configuration: configuration, respond: { _ in HTTPResponse(status: 200, body: Array("up".utf8)) },
            errorResponse: { status, _ in HTTPResponse(status: status) }, log: { _ in })
        let stopped = DispatchSemaphore(value: 0)
        try ServerThread.spawn {
            server.stop()
            stopped.signal()
        }
        #expect(stopped.wait(timeout: .now() + 10) == .success, "stop() of an unstarted server does not wait for anything")
        let port = try server.start()
        defer { server.stop() }
        let client = try RawHTTPClient(port: port)
        let response = try client.get("/")
        #expect(response.status == 200 && response.bodyText == "up")
    }

    @Test("hosts: localhost binds 127.0.0.1; names and out-of-range ports are refused")
    func hosts() throws {
        let harness = try HTTPServerHarness { $0.host = "localhost" }
        defer { harness.server.stop() }
        #expect(try harness.client().get("/x").status == 200)
        #expect(throws: HTTPServerError(operation: "bind", code: 0,
                                        reason: "host 'example.com' is not an IPv4 address such as 127.0.0.1 or 0.0.0.0")) {
            _ = try ListeningSocket.address(host: "example.com", port: 80)
        }
        #expect(throws: HTTPServerError(operation: "bind", code: 0, reason: "port 70000 is out of range 0...65535")) {
            _ = try ListeningSocket.address(host: "127.0.0.1", port: 70_000)
        }
    }

    @Test("binding a port that is in use fails with an error naming bind")
    func portInUse() throws {
        let harness = try HTTPServerHarness()
        defer { harness.server.stop() }
        let second = HTTPServer(
            configuration: HTTPServerConfiguration(port: harness.port), respond: { _ in HTTPResponse(status: 200) },
            errorResponse: { status, _ in HTTPResponse(status: status) }, log: { _ in })
        #expect { try second.start() } throws: { error in
            (error as? HTTPServerError)?.operation == "bind" && (error as? HTTPServerError)?.code == EADDRINUSE
        }
    }

    @Test("SIGTERM runs the termination action once, on an ordinary thread")
    func terminationSignal() {
        let calls = Atomic<Int>(0)
        let called = DispatchSemaphore(value: 0)
        onTerminationSignal {
            calls.add(1, ordering: .relaxed)
            called.signal()
        }
        kill(getpid(), SIGTERM)  // process-directed: test threads may block signals
        #expect(called.wait(timeout: .now() + 5) == .success)
        #expect(calls.load(ordering: .relaxed) == 1)
    }
}
