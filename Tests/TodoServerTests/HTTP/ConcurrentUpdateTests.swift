import Synchronization
import Testing
import TableProtocol
import TodoModel

/// 32 clients updating one item at once over real sockets (issue 5, "Concurrency"): each does a
/// read-modify-write with If-Match, retrying on 412. Exactly one write wins per version, and no
/// update is lost: the counter ends at the number of successful PATCHes.
@Suite struct ConcurrentUpdateTests {
    @Test func thirtyTwoClientsLoseNoUpdateAndOneWinsPerVersion() throws {
        let server = try TableServerHarness()
        try server.insert(#"{"id":"counter","text":"0","priority":0}"#)
        let clients = 32, incrementsEach = 4
        let wins = Atomic<Int>(0), refusals = Atomic<Int>(0)
        let versions = Mutex<[String]>([])
        StorageTestThreads.run(clients) { _ in
            var done = 0
            while done < incrementsEach {
                guard let read = try? server.send("GET", "/tables/todoitem/counter"), read.status == 200,
                      let version = read.object["version"]?.stringValue,
                      let n = read.object["priority"]?.numberValue else { continue }
                let body = #"{"priority":\#(Int(n) + 1)}"#
                guard let write = try? server.send("PATCH", "/tables/todoitem/counter", headers: [("If-Match", "\"\(version)\"")],
                                                   body: body) else { continue }
                if write.status == 200 {
                    wins.add(1, ordering: .relaxed)
                    versions.withLock { $0.append(version) }
                    done += 1
                } else {
                    #expect(write.status == 412, "a stale PATCH is refused with 412, got \(write)")
                    refusals.add(1, ordering: .relaxed)
                }
            }
        }
        let final = try server.send("GET", "/tables/todoitem/counter")
        #expect(wins.load(ordering: .relaxed) == clients * incrementsEach)
        #expect(final.object["priority"]?.numberValue == Double(clients * incrementsEach), "no lost update")
        let won = versions.withLock { $0 }
        #expect(Set(won).count == won.count, "exactly one winner per version")
        #expect(refusals.load(ordering: .relaxed) > 0, "the clients really raced")
    }
}
