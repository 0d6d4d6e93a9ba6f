import Testing
import TableProtocol
import TodoModel
import TodoTestSupport
@testable import TodoServer

/// Issue 18 item 5 (part): PostgreSQL stopped under a running node: every request is a 503 that
/// says so, the node keeps serving, and once PostgreSQL is back the same node answers again with
/// the rows it had, without a restart.
@Suite struct PostgresOutageTests {
    @Test func aStoppedDatabaseIs503AndTheNodeRecovers() throws {
        let cluster = try TestCluster.make("outage").orFail()
        defer { _ = cluster.stop() }
        let h = try TableServerHarness(backend: .postgres, joining: try TestDatabase(on: cluster))
        try h.insert(#"{"id":"a","text":"kept"}"#)
        try cluster.stop().orFail()
        for (method, target, body) in [("GET", "/tables/todoitem/a", nil), ("GET", "/tables/todoitem", nil),
                                       ("POST", "/tables/todoitem", #"{"id":"b"}"#), ("PATCH", "/tables/todoitem/a", #"{"text":"x"}"#)] {
            let reply = try h.send(method, target, body: body, allowing503: true)
            let message = reply.object["error"]?.stringValue ?? ""
            #expect(reply.status == 503 && message.hasPrefix("The storage is unavailable: storage: PostgreSQL ("), "\(method) \(target): \(reply)")
        }
        try cluster.start().orFail()
        let back = try h.send("GET", "/tables/todoitem/a")
        #expect(back.status == 200 && back.object["text"] == "kept")
        #expect(try h.send("POST", "/tables/todoitem", body: #"{"id":"b"}"#).status == 201)
    }
}
