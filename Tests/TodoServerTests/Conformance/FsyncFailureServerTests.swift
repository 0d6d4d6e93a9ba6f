import Testing
import TableProtocol
import TodoBasics
import TodoModel
@testable import TodoServer

/// Issue 17 item 2 against the real server on a socket: after a write is answered 503 because
/// its fsync failed, no GET by id, query page or pull page shows it; the table answers 503 saying
/// why and what to do, other tables go on, and a restart serves what the log holds.
@Suite struct FsyncFailureServerTests {
    /// The reads a client makes: by id (G2, G1), the one-row query of the push, a page, the pull.
    static let reads = [
        ("/tables/todoitem/lost", true),
        ("/tables/todoitem/lost", false),
        ("/tables/todoitem?$filter=id%20eq%20'lost'&__includeDeleted=true", true),
        ("/tables/todoitem", true),
        ("/tables/todoitem?$orderby=updatedAt%20asc,id%20asc&$top=50&__includeDeleted=true", true),
        ("/tables/todoitem?$filter=updatedAt%20ge%20datetimeoffset'2000-01-01T00:00:00.000Z'"
            + "&$orderby=updatedAt%20asc,id%20asc&$top=50&__includeDeleted=true", true),
        ("/tables/todoitem?$filter=__updatedAt%20ge%20datetimeoffset'2000-01-01T00:00:00.000Z'"
            + "&$orderby=__updatedAt%20asc,id%20asc&$top=50&__includeDeleted=true", false),
    ]

    @Test func afterAFailedFsyncNoReadShowsTheRowAndARestartServesTheDurableState() throws {
        let io = FaultyLogFileIO()
        let h = try TableServerHarness(io: io) { $0.tables = ["todoitem", "other"] }
        try h.insert(#"{"id":"kept","text":"durable"}"#)
        try h.insert(#"{"id":"o1"}"#, table: "other")

        io.failSync(losingUnsyncedBytes: true)
        let insert = try h.send("POST", "/tables/todoitem", body: #"{"id":"lost","text":"never durable"}"#,
                                allowing503: true)
        #expect(insert.status == 503)
        // The server's log says so once, whatever --quiet says (ServerMain logs `failureLine`).
        let logged = h.logLines.all.filter { $0.hasPrefix("error: storage: '") }
        #expect(logged.count == 1 && logged[0].contains("fsync failed (Input/output error)")
            && logged[0].contains("restart todo-server"), "\(logged)")

        for (target, g2) in Self.reads {
            let reply = try h.send("GET", target, g2: g2, allowing503: true)
            #expect(!reply.text.contains("never durable"), "GET \(target) showed the row: \(reply)")
            #expect(reply.status == 503, "GET \(target): \(reply)")
        }
        let read = try h.send("GET", "/tables/todoitem/kept", allowing503: true)
        let message = read.object["error"]?.stringValue ?? ""
        #expect(read.status == 503)
        #expect(message.contains("fsync failed (Input/output error)") && message.contains("todoitem.log")
            && message.contains("restart todo-server"), "\(message)")
        #expect(try h.send("PATCH", "/tables/todoitem/kept", body: #"{"text":"x"}"#, allowing503: true).status == 503)
        // Another table has its own log and its own fsyncs: it goes on.
        #expect(try h.send("GET", "/tables/other/o1").status == 200)
        #expect(try h.send("POST", "/tables/other", body: #"{"id":"o2"}"#).status == 201)

        h.server.stop()
        h.storage.close()
        let restarted = try TableServerHarness(reopening: h.directory) { $0.tables = ["todoitem", "other"] }
        #expect(try restarted.send("GET", "/tables/todoitem/lost").status == 404)
        #expect(try restarted.send("GET", "/tables/todoitem").array.ids == ["kept"])
        #expect(try restarted.send("GET", "/tables/other?$orderby=id").array.ids == ["o1", "o2"])
        #expect(try restarted.send("POST", "/tables/todoitem", body: #"{"id":"lost","text":"again"}"#).status == 201)
    }
}
