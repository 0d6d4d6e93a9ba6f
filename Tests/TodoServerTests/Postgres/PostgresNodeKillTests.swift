#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
import TableProtocol
import TodoBasics
import TodoModel
import TodoTestSupport
@testable import TodoServer

/// Issue 18 item 5: kill -9 of a node mid-write, with the built binaries. Clients write through
/// node 1 of two; node 1 is killed under the load; each client sends again through node 2 what
/// was not acknowledged, as a replica would (sync.md's replay check): an insert answered 409 is
/// its own if the row holds what it sent, an If-Match update answered 412 is its own if the
/// row holds its text. Every acknowledged write is there exactly, none applied twice, no
/// duplicate row.
@Suite(.serialized) struct PostgresNodeKillTests {
    /// What one client's write ended as: the text and the version the server acknowledged.
    struct Acknowledged: Equatable {
        var text: String
        var version: String
    }

    /// One write, sent to `ports` in turn until one answers: the answer, and whether it was not
    /// the first port (a retry after the node died).
    static func write(_ ports: borrowing Mutex<[Int]>, _ method: String, _ target: String, _ body: String,
                      headers: [String] = []) -> (HTTPResponse, retried: Bool)? {
        var retried = false
        for _ in 0..<2 {
            let port = ports.withLock { $0[0] }
            if let answer = try? PostgresServerProcessTests.send(port, method, target, body, headers: headers) {
                return (answer, retried)
            }
            // No answer: the node is gone (or going); from now on, node 2.
            ports.withLock { if $0.count > 1 && $0[0] == port { $0.removeFirst() } }
            retried = true
        }
        return nil
    }

    static func object(_ response: HTTPResponse) -> [String: JSONValue] {
        (try? JSONValue.parse(response.body))?.objectValue ?? [:]
    }

    @Test func sigkillOfANodeMidWriteLosesAndDoublesNothing() throws {
        let database = try TestDatabase()
        let dir = TempDirectory("todo-server-pg-kill")
        defer { dir.remove() }
        let store = ["--store", PostgresServerProcessTests.url(database)]
        let one = try ServerProcessTests.start(dir.sub("data1"), dir, store)
        let two = try ServerProcessTests.start(dir.sub("data2"), dir, store)
        defer { kill(two.pid, SIGTERM); var s: Int32 = 0; waitpid(two.pid, &s, 0) }
        let clients = 8, rowsEach = 20
        let acknowledgedCount = Atomic(0), retries = Atomic(0)
        let results = Mutex<[String: Acknowledged]>([:])
        let failures = Mutex<[String]>([])
        let killed = Atomic(false)
        RealThreads.run(clients + 1) { c in
            if c == clients {
                // Kill node 1 once the load is well under way (bounded: at most ~10 s of waiting).
                var waited = 0
                while acknowledgedCount.load(ordering: .relaxed) < 60 && waited < 5_000 { usleep(2_000); waited += 1 }
                kill(one.pid, SIGKILL)
                var status: Int32 = 0
                waitpid(one.pid, &status, 0)
                killed.store(true, ordering: .relaxed)
                return
            }
            let ports = Mutex([one.port, two.port])
            func fail(_ text: String) { failures.withLock { $0.append(text) } }
            for n in 0..<rowsEach {
                let id = "c\(c)-\(n)"
                // The insert, with the client's id.
                guard let (inserted, insertRetried) = Self.write(ports, "POST", "/tables/todoitem", #"{"id":"\#(id)","text":"new"}"#) else {
                    return fail("\(id): no node answered the insert")
                }
                if insertRetried { retries.add(1, ordering: .relaxed) }
                var row = Self.object(inserted)
                if inserted.status == 409 && insertRetried {
                    // Sent before the kill and maybe landed: ours if it holds what was sent.
                    guard row["text"] == "new" else { return fail("\(id): 409 with \(row)") }
                } else if inserted.status != 201 {
                    return fail("\(id): insert answered \(inserted.status)")
                }
                guard let version = row["version"]?.stringValue else { return fail("\(id): no version in \(row)") }
                acknowledgedCount.add(1, ordering: .relaxed)
                results.withLock { $0[id] = Acknowledged(text: "new", version: version) }
                // An update with If-Match on the version acknowledged.
                guard let (updated, updateRetried) = Self.write(ports, "PATCH", "/tables/todoitem/\(id)", #"{"text":"updated"}"#,
                                                               headers: ["If-Match: \"\(version)\""]) else {
                    return fail("\(id): no node answered the update")
                }
                if updateRetried { retries.add(1, ordering: .relaxed) }
                if updated.status == 412 && updateRetried {
                    // Maybe applied before the kill: ours if the current row holds our text.
                    guard let current = try? PostgresServerProcessTests.send(ports.withLock { $0[0] }, "GET", "/tables/todoitem/\(id)"),
                          Self.object(current)["text"] == "updated" else { return fail("\(id): 412 and the row is not ours") }
                    row = Self.object(current)
                } else if updated.status == 200 {
                    row = Self.object(updated)
                } else {
                    return fail("\(id): update answered \(updated.status)")
                }
                guard let after = row["version"]?.stringValue, after != version else { return fail("\(id): version \(row)") }
                acknowledgedCount.add(1, ordering: .relaxed)
                results.withLock { $0[id] = Acknowledged(text: "updated", version: after) }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 }.prefix(5))")
        let wasKilled = killed.load(ordering: .relaxed)
        #expect(wasKilled)
        let retried = retries.load(ordering: .relaxed)
        #expect(retried > 0, "some writes were sent again through node 2")
        let acknowledged = acknowledgedCount.load(ordering: .relaxed)
        #expect(acknowledged == clients * rowsEach * 2, "every write acknowledged in the end")
        let rows = try PostgresServerProcessTests.send(two.port, "GET", "/tables/todoitem?$top=1000&__includeDeleted=true")
        let stored = (try? JSONValue.parse(rows.body))?.arrayValue ?? []
        #expect(stored.count == clients * rowsEach, "no duplicate, no extra row")
        var found: [String: Acknowledged] = [:]
        for row in stored {
            found[row["id"]?.stringValue ?? "", default: Acknowledged(text: "", version: "")]
                = Acknowledged(text: row["text"]?.stringValue ?? "", version: row["version"]?.stringValue ?? "")
        }
        #expect(found == results.withLock { $0 }, "each row as its last acknowledged write left it (an update twice would move the version)")
    }
}
