import Testing
import TodoBasics
import TodoTestSupport

/// Issue 21 item 3: the index of ids (`.todo/cache/ids`) is derived from the item and numbers
/// files: `todo doctor` reports one that vouches for them but is wrong, and rebuilds it; deleting
/// it is always safe.
@Suite struct IDIndexDoctorTests {
    static let bucket = ".todo/cache/ids/todoitem/1"

    /// Items a and b (numbers 1 and 2) with an index built by doctor.
    static func store() -> (TempDirectory, CLIHarness) {
        let dir = TempDirectory()
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("init").code == 0)
        #expect(cli.run("add", "first", "--id", "a").code == 0)
        #expect(cli.run("add", "second", "--id", "b").code == 0)
        #expect(cli.run("doctor").out.hasPrefix("ok: "))
        #expect(LocalFileSystem().fileExists(dir.sub(".todo/cache/ids/todoitem/stamp")))
        return (dir, cli)
    }

    static func write(_ dir: TempDirectory, _ text: String) throws {
        try LocalFileSystem().writeFile(dir.sub(bucket), Array(text.utf8), sync: false)
    }

    @Test(arguments: [
        (#"{"ids": ["a 1"]}"#, #"note: .todo/cache/ids/todoitem: the index of ids misses "b" (an item file added by hand while todo wrote?); rebuilt from the item files"#),
        (#"{"ids": ["a 1", "b 2", "c 3"]}"#, #"note: .todo/cache/ids/todoitem/1: the index of ids lists "c", which has no item file; rebuilt from the item files"#),
        (#"{"ids": ["a 7", "b 2"]}"#, #"note: .todo/cache/ids/todoitem/1: the index of ids gives "a" number 7, not 1; rebuilt from the item files"#),
        (#"{"ids": ["b 2", "a 1"]}"#, #"note: .todo/cache/ids/todoitem/1: damaged: not {"ids": ["<id> <number>", ...]} in id order; rebuilt from the item files"#),
    ])
    func doctorReportsAndRebuildsAWrongIndex(_ bucket: String, _ note: String) throws {
        let (dir, cli) = Self.store()
        defer { dir.remove() }
        try Self.write(dir, bucket)
        let doctor = cli.run("doctor")
        #expect(doctor.code == 0 && doctor.out.contains(note + "\n"), "\(doctor)")
        #expect(cli.run("doctor").out.hasPrefix("ok: "), "rebuilt")
        #expect(String(decoding: try #require(try LocalFileSystem().readFile(dir.sub(Self.bucket))), as: UTF8.self)
                == "{\n  \"ids\": [\n    \"a 1\",\n    \"b 2\"\n  ]\n}\n")
    }

    /// A command meets the index as the user left it: a damaged one is not used (the items
    /// folder is listed), and a local change rebuilds it.
    @Test func aDamagedIndexIsListedAroundAndRebuilt() throws {
        let (dir, cli) = Self.store()
        defer { dir.remove() }
        try Self.write(dir, "not json")
        let show = cli.run("show", "2")
        #expect(show.code == 0 && show.out.hasPrefix("id:        b\n"), "\(show)")
        #expect(cli.run("done", "1").out == "completed a (folded into pending insert #1)\n")
        #expect(cli.run("doctor").out.hasPrefix("ok: "))
    }

    @Test func deletingTheCacheIsSafe() throws {
        let (dir, cli) = Self.store()
        defer { dir.remove() }
        #expect(TempDirectory.shell("rm -rf '\(dir.sub(".todo/cache"))'") == 0)
        #expect(cli.run("edit", "b", "--text", "changed").out == "updated b (folded into pending insert #2)\n")
        #expect(cli.run("add", "third", "--id", "c").err == "added as number 3\n")
        #expect(cli.run("rm", "3").code == 0)
        #expect(cli.run("doctor").out.hasPrefix("ok: "))
        #expect(LocalFileSystem().fileExists(dir.sub(".todo/cache/ids/todoitem/stamp")))
    }
}
