import Testing
import TodoBasics
import TodoModel
import TodoTestSupport

/// Issue 19 item 1 and issue 21 item 3, against the real server: pulled items get numbers in the
/// pull's own commits, and a pull or push keeps the index of ids (`.todo/cache/ids`) it found
/// right, so the next local change need not list the items folder to rebuild it.
@Suite struct ItemNumberSyncTests {
    @Test func pulledItemsGetNumbersAndSyncKeepsTheIndexOfIds() throws {
        let world = try SyncWorld()
        let a = world.replica("A")
        let stamp = a.directory + "/.todo/cache/ids/todoitem/stamp"
        #expect(a.run("add", "mine", "--id", "m1").err == "added as number 1\n")
        #expect(a.run("doctor").out.hasPrefix("ok: "))  // builds the index
        #expect(LocalFileSystem().fileExists(stamp))
        world.raw("POST", "/tables/todoitem", body: ["id": "s2", "text": "theirs"])
        world.raw("POST", "/tables/todoitem", body: ["id": "s1", "text": "theirs too"])
        #expect(a.run("push").code == 0)
        #expect(LocalFileSystem().fileExists(stamp), "the push kept the index")
        #expect(a.run("pull").code == 0)
        #expect(LocalFileSystem().fileExists(stamp), "the pull kept the index")
        #expect(a.run("show", "2").out.hasPrefix("id:         s1\n"))
        #expect(a.run("show", "3").out.hasPrefix("id:         s2\n"))
        #expect(a.run("done", "3").out == "completed s2 (update #2 queued)\n")
        let doctor = a.run("doctor")
        #expect(doctor.out.hasPrefix("ok: ") && !doctor.out.contains("cache/ids"), "\(doctor)")
    }
}
