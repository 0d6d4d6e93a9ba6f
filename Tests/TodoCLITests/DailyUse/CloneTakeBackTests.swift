import Testing
import TodoBasics
import TodoTestSupport

/// Issue 19 item 3: a clone that pulls nothing (here: nobody listens on the port) leaves no
/// half-made replica, and no folder it made.
@Suite struct CloneTakeBackTests {
    @Test func aCloneThatPullsNothingRemovesTheFolderItMade() {
        let dir = TempDirectory()
        defer { dir.remove() }
        let cli = CLIHarness(directory: dir.path)
        let r = cli.run("clone", "http://127.0.0.1:9", "copy")
        #expect(r.code == 4, "\(r)")
        #expect(!r.err.contains("run 'todo pull' again"), "no replica is left to pull into: \(r)")
        #expect(r.err.hasSuffix("hint: nothing was pulled, so the clone was taken back (\(dir.sub("copy")) removed); check the URL, then run the clone again\n"), "\(r)")
        #expect(!LocalFileSystem().fileExists(dir.sub("copy")))
        // The same command works once it can: nothing is in the way.
        #expect(cli.run("init", "copy").code == 0)
    }

    @Test func aCloneIntoAnExistingFolderRemovesOnlyTheReplica() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        try LocalFileSystem().writeFile(dir.sub("notes.txt"), Array("mine\n".utf8), sync: false)
        let cli = CLIHarness(directory: dir.path)
        let r = cli.run("clone", "http://127.0.0.1:9")
        #expect(r.code == 4, "\(r)")
        #expect(!LocalFileSystem().fileExists(dir.sub(".todo")))
        #expect(LocalFileSystem().fileExists(dir.sub("notes.txt")))
        #expect(cli.run("init").code == 0, "the folder is as it was")
    }
}
