import Testing
import TodoModel
import TodoTestSupport

/// Issue 19 item 2, against the real server: the line a push ends with names every conflict it
/// left open and only the choices that work, and running it settles them.
@Suite struct ConflictHintTests {
    @Test func aPushNamesEveryOpenConflictAndTheHintedCommandSettlesThem() throws {
        let world = try SyncWorld()
        let a = world.replica("A")
        _ = try #require(world.synced(a, "xray"))
        a.expect(0, "edit", "xray", "--text", "b")
        world.raw("PATCH", "/tables/todoitem/xray", body: ["text": "c"])
        a.expect(0, "add", "mine", "--id", "yank")
        world.raw("POST", "/tables/todoitem", body: ["id": "yank", "text": "theirs"])
        let push = a.expect(3, "push")
        #expect(push.out.contains("  insert  todoitem  yank  conflict (409): added on both sides"), "\(push)")
        let footer = try #require(push.out.split(separator: "\n").last.map(String.init))
        #expect(footer == "2 conflicts open. Settle them with 'todo resolve xray yank --use-client|--use-server' ('todo diff' shows the copies).")
        a.expect(0, "resolve", "xray", "yank", "--use-server")
        #expect(a.conflicts.isEmpty)
    }
}
