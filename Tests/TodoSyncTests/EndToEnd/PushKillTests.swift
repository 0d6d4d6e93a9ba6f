#if canImport(Glibc)
import Glibc
#endif
import Testing
import TableProtocol
import TodoBasics
import TodoModel
import TodoTestSupport

/// kill -9 of a real `todo push` at spread-out moments, then `todo push` again: the store is
/// clean, and the server holds exactly one row per item (sync.md §4.4: replay is idempotent).
@Suite(.serialized) struct PushKillTests {
    @Test func aKilledPushRunAgainLeavesExactlyOneCopyOfEachItem() throws {
        let server = try BinaryTutorialTests.ServerProcess()
        let todo = BinaryTutorialTests.build + "/todo"
        let rounds = 12, perRound = 30
        // How long one push of `perRound` inserts takes here, to spread the kills over it.
        #expect(server.todo("init --remote \(server.url)", in: "probe").code == 0)
        for i in 0..<perRound { _ = server.todo("add p\(i) --id probe\(i)", in: "probe") }
        let started = Clock.live.nowMilliseconds()
        #expect(server.todo("push", in: "probe").code == 0)
        let onePush = Double(max(Clock.live.nowMilliseconds() - started, 5)) / 1000
        var killedMidway = 0
        for round in 0..<rounds {
            let replica = "r\(round)"
            #expect(server.todo("init --remote \(server.url)", in: replica).code == 0)
            let adds = (0..<perRound).map { "'\(todo)' add 'item \($0)' --id r\(round)x\($0) > /dev/null" }.joined(separator: " && ")
            #expect(server.sh(adds, in: replica).code == 0)
            let delay = Double(round) / Double(rounds - 1) * 1.2 * onePush
            // Batches of 7: the kill can also land while a batch's commit overlaps the next batch's requests.
            let kill = server.sh("TODO_PUSH_BATCH=7 TODO_PUSH_CONNECTIONS=2 '\(todo)' push > /dev/null 2>&1 & p=$!; sleep \(delay); kill -9 $p 2>/dev/null; wait $p; echo $?", in: replica)
            if kill.out != "0\n" { killedMidway += 1 }
            #expect(server.todo("doctor", in: replica).code == 0, "doctor after the kill of round \(round)")
            var again = server.todo("push", in: replica)
            if again.code == 4 { again = server.todo("push", in: replica) }
            #expect(again.code == 0, "push after the kill of round \(round): \(again.out)")
            let status = try JSONValue.parse(server.todo("status --json", in: replica).out)
            #expect(status["pending"]?.arrayValue?.isEmpty == true, "queue empty after round \(round)")
            let rows = server.http("GET", "/tables/todoitem?$filter=startswith(id,'r\(round)x')&$top=1000&$inlinecount=allpages",
                                   headers: [("ZUMO-API-VERSION", "2.0.0")]).json
            let ids = (rows?["results"]?.arrayValue ?? rows?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
            #expect(ids.count == perRound, "round \(round): \(ids.count) rows on the server")
            #expect(Set(ids).count == ids.count, "no id twice")
        }
        #expect(killedMidway > 0, "some pushes were killed before they finished")
    }
}
