#if canImport(Glibc)
import Glibc
#endif
import Testing
import TableProtocol
@testable import TodoServer

/// Issue 17 item 1 on the whole table server: an attacker without the app key holds idle and
/// slow-header connections, more than the server's connection limit, from 127.0.0.1; a client with
/// the key on another address (127.0.0.2) still reads and writes. (On the code before issue 17 every
/// one of its requests was answered 503.)
@Suite struct ConnectionExhaustionTests {
    @Test func anAuthenticatedClientKeepsWorkingThroughIdleAndSlowConnections() throws {
        let h = try TableServerHarness({ $0.appKey = "k" }, http: { $0.maxConnections = 40 })
        var attacker: [RawHTTPClient] = []
        for n in 0..<20 {  // slow headers: a request head that never ends
            let slow = try RawHTTPClient(port: h.port, receiveTimeout: .seconds(5))
            try? slow.send("GET /tables/todoitem HTTP/1.1\r\nHost: x\r\nX-Slow-\(n): ")
            attacker.append(slow)
        }
        for _ in 0..<100 { attacker.append(try RawHTTPClient(port: h.port, receiveTimeout: .seconds(5))) }  // idle
        usleep(1_200_000)  // the idle connections have waited for more than a second
        let key = [("X-ZUMO-APPLICATION", "k")]
        for i in 0..<20 {
            let read = try h.send("GET", "/tables/todoitem", headers: key, from: "127.0.0.2")
            #expect(read.status == 200, "read \(i): \(read)")
        }
        let write = try h.send("POST", "/tables/todoitem", headers: key, body: #"{"id":"during","text":"t"}"#, from: "127.0.0.2")
        #expect(write.status == 201, "\(write)")
        withExtendedLifetime(attacker) {}
    }
}
