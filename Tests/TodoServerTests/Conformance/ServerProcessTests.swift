#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization
import Testing
import TableProtocol
import TodoBasics
import TodoModel
import TodoTestSupport
@testable import TodoServer

/// Checklist 23: a client that sends half a request and stops is answered 408 and dropped, and
/// holds nobody up meanwhile (the request timeout is 30 s in production; 1 s here).
@Suite struct StalledClientTests {
    @Test func c23_halfARequestThenSilence() throws {
        let h = try TableServerHarness(http: { $0.requestTimeout = .seconds(1) })
        let slow = try RawHTTPClient(port: h.port, receiveTimeout: .seconds(10))
        try slow.send(Array("GET /tables/todoitem HTTP/1.1\r\nHost: x\r\nZUMO-API".utf8))
        #expect(try h.send("GET", "/tables/todoitem").status == 200, "others are served meanwhile")
        let answer = slow.readUntilClosed() ?? []
        #expect(String(decoding: answer, as: UTF8.self).hasPrefix("HTTP/1.1 408"))
    }

    @Test func c59_nulAndControlCharactersInIDs() throws {
        let h = try TableServerHarness()
        for id in ["a%00b", "a%01b", "%2E%2E", "a%ZZb"] {
            #expect(try h.send("GET", "/tables/todoitem/\(id)").status == 400, "\(id)")
        }
    }
}

/// Checklist 135, with the built `todo-server` binary: SIGKILL during a stream of inserts, then
/// a restart on the same data keeps every insert that was acknowledged.
@Suite(.serialized) struct ServerProcessTests {
    static var binary: String { Fixtures.root.parentPath.appendingPath(".build/debug/todo-server") }

    /// Starts the server on port 0 and returns its pid and port.
    static func start(_ data: String, _ dir: TempDirectory, _ extra: [String] = []) throws -> (pid: pid_t, port: Int) {
        let out = dir.sub("server-\(UInt32.random(in: 0...UInt32.max)).out")
        var pid: pid_t = 0
        var fileActions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&fileActions)
        posix_spawn_file_actions_addopen(&fileActions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&fileActions, 2, "/dev/null", O_WRONLY, 0)
        let args = [binary, "--data", data, "--port", "0", "--quiet"] + extra
        var argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        defer { for a in argv { free(a) }; posix_spawn_file_actions_destroy(&fileActions) }
        let rc = posix_spawn(&pid, binary, &fileActions, nil, &argv, environ)
        guard rc == 0 else { throw FileSystemError(operation: "spawn", path: binary, code: rc, reason: errnoText(rc)) }
        for _ in 0..<200 {
            if let bytes = try LocalFileSystem().readFile(out), let line = String(validating: bytes, as: UTF8.self),
               line.hasPrefix("listening on http://"), line.hasSuffix("\n"),
               let port = Int(line.dropLast().split(separator: ":").last ?? "") {
                return (pid, port)
            }
            usleep(20_000)
        }
        kill(pid, SIGKILL)
        throw FileSystemError(operation: "start", path: binary, code: 0, reason: "no 'listening on' line")
    }

    @Test func c135_sigkillDuringInsertsLosesNoAcknowledgedWrite() throws {
        #expect(LocalFileSystem().fileExists(Self.binary), "build todo-server first (swift build)")
        let dir = TempDirectory("todo-server-kill")
        defer { dir.remove() }
        let data = dir.sub("data")
        var acknowledged = Set<String>()
        for round in 0..<3 {
            let (pid, port) = try Self.start(data, dir)
            let acks = Mutex<[String]>([])
            let stop = Atomic<Bool>(false)
            let group = DispatchGroup()
            for worker in 0..<4 {
                DispatchQueue.global().async(group: group) {
                    var n = 0
                    while !stop.load(ordering: .relaxed) {
                        let id = "r\(round)w\(worker)n\(n)"
                        n += 1
                        guard let client = try? RawHTTPClient(port: port, receiveTimeout: .seconds(5)) else { break }
                        let body = #"{"id":"\#(id)","text":"t"}"#
                        let request = "POST /tables/todoitem HTTP/1.1\r\nHost: x\r\nZUMO-API-VERSION: 2.0.0\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                        if (try? client.send(Array(request.utf8))) != nil, let r = try? client.readResponse(), r.status == 201 {
                            acks.withLock { $0.append(id) }
                        }
                        client.close()
                    }
                }
            }
            var waited = 0
            while acks.withLock({ $0.count }) < 40 + round * 60 && waited < 5_000 { usleep(2_000); waited += 1 }
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            stop.store(true, ordering: .relaxed)
            group.wait()
            acknowledged.formUnion(acks.withLock { $0 })
        }
        let (pid, port) = try Self.start(data, dir)
        defer { kill(pid, SIGTERM); var s: Int32 = 0; waitpid(pid, &s, 0) }
        let client = try RawHTTPClient(port: port)
        defer { client.close() }
        let request = "GET /tables/todoitem?$top=1000&$select=id HTTP/1.1\r\nHost: x\r\nZUMO-API-VERSION: 2.0.0\r\n\r\n"
        try client.send(Array(request.utf8))
        let rows = (try? JSONValue.parse(try client.readResponse().body))?.arrayValue ?? []
        let stored = Set(rows.compactMap { $0["id"]?.stringValue })
        #expect(acknowledged.count >= 40)
        #expect(acknowledged.subtracting(stored).isEmpty, "lost: \(acknowledged.subtracting(stored).sorted().prefix(5))")
    }
}

/// Issue 17 item 4, with the built binary: a client creating tables with `--dynamic-tables` does
/// not make the server's descriptors grow (they used to, until the process ran out of them).
@Suite(.serialized) struct ServerDescriptorTests {
    /// The server's open descriptors on table logs.
    static func openLogs(_ pid: pid_t, _ data: String) -> Int {
        let dir = "/proc/\(pid)/fd"
        var count = 0
        for fd in ((try? LocalFileSystem().listDirectory(dir)) ?? nil) ?? [] {
            var buffer = [CChar](repeating: 0, count: 4096)
            let n = readlink(dir + "/" + fd, &buffer, buffer.count - 1)
            guard n > 0 else { continue }
            let target = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if target.hasSuffix(".log"), target.contains("/data/") { count += 1 }
        }
        return count
    }

    @Test func creatingTablesDoesNotGrowTheDescriptors() throws {
        #expect(LocalFileSystem().fileExists(ServerProcessTests.binary), "build todo-server first (swift build)")
        let dir = TempDirectory("todo-server-fds")
        defer { dir.remove() }
        let (pid, port) = try ServerProcessTests.start(dir.sub("data"), dir, ["--dynamic-tables"])
        defer { kill(pid, SIGTERM); var s: Int32 = 0; waitpid(pid, &s, 0) }
        func send(_ method: String, _ target: String, _ body: String = "") throws -> HTTPResponse {
            let client = try RawHTTPClient(port: port)
            defer { client.close() }
            try client.send("\(method) \(target) HTTP/1.1\r\nHost: x\r\nZUMO-API-VERSION: 2.0.0\r\n"
                            + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
            return try client.readResponse(method: method)
        }
        for n in 0..<150 { #expect(try send("POST", "/tables/t\(n)", #"{"id":"a"}"#).status == 201) }
        let open = Self.openLogs(pid, dir.sub("data"))
        #expect(open <= 64, "150 tables: \(open) logs open (at most 64 stay open)")
        #expect(try send("GET", "/tables/t0/a").status == 200)
        #expect(try send("PATCH", "/tables/t1/a", #"{"k":1}"#).status == 200)
    }
}
