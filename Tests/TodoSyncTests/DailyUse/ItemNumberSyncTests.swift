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

    /// Issue 21: a pull of many new items cannot keep the index page by page (each page would
    /// rewrite most buckets), so it left it stale and the first `edit` after a clone of a million
    /// items rebuilt it (39 s). The pull now rebuilds it once at its end: the index then holds
    /// every pulled id with its number. Small buckets (4 ids) make 300 rows enough.
    @Test func aPullOfManyNewItemsLeavesTheIndexOfIdsRebuilt() throws {
        let world = try SyncWorld()
        let ids = (0..<300).map { "row-\(String(1000 + ($0 * 7919) % 1000))-\($0)" }
        for id in ids { #expect(world.raw("POST", "/tables/todoitem", body: ["id": .string(id), "text": "t"]).status == 201) }
        let a = world.replica("A", environment: ["TODO_TEST_ID_BUCKET_LIMIT": "4"])
        #expect(a.run("add", "mine", "--id", "m1").code == 0)
        #expect(a.run("doctor").out.hasPrefix("ok: "))  // builds the index
        #expect(a.run("pull").code == 0)
        let folder = a.directory + "/.todo/cache/ids/todoitem"
        #expect(LocalFileSystem().fileExists(folder + "/stamp"), "the pull left the index of ids stale")
        var indexed: [String: Int] = [:]
        let directory = try JSONValue.parse(try LocalFileSystem().readFile(folder + "/directory") ?? [])
        for line in directory["buckets"]?.arrayValue ?? [] {
            let name = String(line.stringValue?.split(separator: " ").first ?? "")
            let bucket = try JSONValue.parse(try LocalFileSystem().readFile(folder + "/" + name) ?? [])
            for entry in bucket["ids"]?.arrayValue ?? [] {
                let parts = entry.stringValue?.split(separator: " ") ?? []
                indexed[String(parts.first ?? "")] = Int(parts.last ?? "")
            }
        }
        #expect(indexed.count == 301)
        #expect(indexed["m1"] == 1)
        #expect(Set(indexed.values).count == 301, "each id its own number")
        #expect(Set(indexed.keys).symmetricDifference(ids + ["m1"]).isEmpty)
        let doctor = a.run("doctor")
        #expect(doctor.out.hasPrefix("ok: ") && !doctor.out.contains("cache/ids"), "\(doctor)")
    }
}
