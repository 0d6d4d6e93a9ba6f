import Testing
import TodoBasics
import TodoTestSupport

/// Issue 21 item 3: at 1,000,000 items the directory of the index of ids is 90 KB and a bucket
/// 25 KB of JSON, each about a millisecond to read; a command of one item reads each file it
/// needs once, however many times it looks an id up (counted, never timed).
@Suite struct IDIndexReadsTests {
    @Test func aCommandOfOneItemReadsEachFileOfTheIndexOnce() {
        let dir = TempDirectory()
        defer { dir.remove() }
        let fs = CountingFileSystem()
        let cli = CLIHarness(directory: dir.path, fs: fs)
        #expect(cli.run("init").code == 0)
        for i in 0..<40 { #expect(cli.run("add", "item \(i)", "--id", "k\(i)x").code == 0) }
        #expect(cli.run("doctor").out.hasPrefix("ok: "))  // builds the index of ids
        let commands: [[String]] = [["edit", "k17x", "--text", "changed"], ["edit", "k17", "--text", "again"], ["show", "k17x"],
                                    ["done", "4"], ["undone", "k3x"], ["rm", "k5x"], ["add", "one more", "--id", "k5y"],
                                    ["show", "k5y"], ["edit", "41", "--text", "b"]]
        for args in commands {
            fs.reset()
            let r = cli.run(args)
            #expect(r.code == 0, "\(args): \(r)")
            let index = fs.reads(containing: "/.todo/cache/ids/todoitem/").filter { !$0.hasSuffix("/stamp") }
            #expect(index.count == Set(index).count, "todo \(args.joined(separator: " ")) read \(index)")
        }
        #expect(cli.run("doctor").out.hasPrefix("ok: "), "the index kept by the commands matches the item files")
    }
}
