import Testing
import TodoBasics
import TodoModel
import TodoTestSupport

/// Issue 21: `push` and `pull` keep the index of pending operations in the commits that change the
/// queue, as local changes do, so `log` and `diff` after them walk its pages (they left it stale,
/// and until the next local change both listed and sorted the whole queue). Counted through the
/// file-system seam: no listing of the operations folder.
@Suite struct PendingIndexSyncTests {
    /// `log` and `diff` of the replica read no listing of `.todo/operations`, and give what they
    /// give with the index deleted (then they list and sort); doctor finds the index right.
    static func readersUseThePages(_ world: SyncWorld, _ replica: CLIHarness, _ when: String) throws {
        let fs = CountingFileSystem()
        var paged: [CLIResult] = []
        for args in [["log"], ["diff"], ["log", "--json"]] {
            fs.reset()
            let r = CLIHarness(directory: replica.directory, environment: replica.environment, fs: fs, transport: world.transport).run(args)
            #expect(r.code == 0 && !r.out.isEmpty, "\(when): \(args): \(r)")
            #expect(fs.lists(endingWith: "/.todo/operations") == 0, "\(when): \(args) listed the queue")
            paged.append(r)
        }
        let doctor = replica.run("doctor")
        #expect(doctor.code == 0 && !doctor.out.contains("cache/pending"), "\(when): \(doctor)")
        let cache = replica.directory + "/.todo/cache/pending"
        for name in try LocalFileSystem().listDirectory(cache) ?? [] { try LocalFileSystem().removeFile(cache + "/" + name) }
        for (args, page) in zip([["log"], ["diff"], ["log", "--json"]], paged) {
            #expect(replica.run(args).out == page.out, "\(when): \(args) sorted gives the same")
        }
        #expect(replica.run("doctor").code == 0)  // rebuilds the index
    }

    @Test func afterAPushThatLeavesAConflictAndAfterAPullTheReadersUseThePages() throws {
        let world = try SyncWorld()
        let a = world.replica("A")
        _ = try #require(world.synced(a, "xray"))
        _ = try #require(world.synced(a, "yank"))
        a.expect(0, "edit", "xray", "--text", "mine")
        world.raw("PATCH", "/tables/todoitem/xray", body: ["text": "theirs"])
        for id in ["k1", "k2", "k3"] { a.expect(0, "add", "new \(id)", "--id", id) }
        a.expect(0, "edit", "k2", "--text", "again")
        a.expect(0, "doctor")
        let push = a.expect(3, "push")
        #expect(push.out.contains("conflict"), "\(push)")
        try Self.readersUseThePages(world, a, "after the push")

        // The pull takes two operations out of the queue: an edit the server already has, and a
        // removal the server made too.
        a.expect(0, "rm", "k1")
        a.expect(0, "edit", "yank", "--text", "same")
        a.expect(0, "add", "later", "--id", "k4")
        world.raw("PATCH", "/tables/todoitem/yank", body: ["text": "same"])
        world.raw("DELETE", "/tables/todoitem/k1")
        world.raw("POST", "/tables/todoitem", body: ["id": "zulu", "text": "from elsewhere"])
        let before = a.run("log").out
        let pull = a.run("pull")
        #expect(pull.code == 0 || pull.code == 3, "\(pull)")
        #expect(a.run("log").out != before, "the pull changed the queue")
        try Self.readersUseThePages(world, a, "after the pull")
    }
}
