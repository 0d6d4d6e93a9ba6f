import Testing
import TodoBasics
import TodoModel
import TodoTestSupport

/// Issue 17 item 5, against a server that requires an app key: the key read from `.todo/app-key`
/// is the one sent; a replica whose key an older todo left in `config.json` keeps syncing (with a
/// warning), and after `todo remote set` moved the key it syncs from the file.
@Suite struct AppKeySyncTests {
    @Test func theKeyFileIsSentAndAKeyInConfigJSONKeepsWorking() throws {
        let world = try SyncWorld(wire: .inProcess) { $0.appKey = "s3cret" }
        try LocalFileSystem().writeFile(world.directory.sub("key.txt"), Array("s3cret\n".utf8), sync: false)
        let a = world.replica("A", extraInit: ["--app-key-file", world.directory.sub("key.txt")])
        a.expect(0, "add", "from the key file", "--id", "a1")
        let push = a.expect(0, "push")
        #expect(push.err == "", "\(push)")
        #expect(world.row("a1")?["text"] == "from the key file")

        // A replica as an older todo left it: the key in config.json, no key file.
        let b = world.replica("B")
        let config = world.directory.sub("B/.todo/config.json")
        let text = String(decoding: try #require(try LocalFileSystem().readFile(config)), as: UTF8.self)
        let legacy = text.split(separator: "\n").map { $0.contains("\"defaultTable\"") ? "  \"appKey\": \"s3cret\",\n" + $0 : String($0) }
        try LocalFileSystem().writeFile(config, Array((legacy.joined(separator: "\n") + "\n").utf8), sync: false)
        b.expect(0, "add", "from config.json", "--id", "b1")
        let legacyPush = b.expect(0, "push")
        #expect(legacyPush.err.hasPrefix("warning: the app key is stored in .todo/config.json"), "\(legacyPush)")
        #expect(world.row("b1")?["text"] == "from config.json")

        b.expect(0, "remote", "set")
        b.expect(0, "edit", "b1", "--text", "from the moved key")
        let movedPush = b.expect(0, "push")
        #expect(movedPush.err == "", "\(movedPush)")
        #expect(world.row("b1")?["text"] == "from the moved key")
    }
}
