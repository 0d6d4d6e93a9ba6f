import Testing
import TodoModel
import TodoTestSupport

/// sync.md §12 scenarios 92–94: the tutorial's two devices and the REST client, over a real server.
@Suite struct TutorialTests {
    /// A and B synced with x "Mobile Services is Cool!" (v1); A pushes "I love Mobile Services!" (v2);
    /// B edits to "I love Azure!" and pushes: 412, a conflict on `text`, exit 3.
    func conflictWorld(_ wire: SyncWorld.Wire = .inProcess) throws -> (SyncWorld, a: CLIHarness, b: CLIHarness) {
        let world = try SyncWorld(wire: wire)
        let a = world.replica("A"), b = world.replica("B")
        a.expect(0, "add", "Mobile Services is Cool!", "--id", "x")
        a.expect(0, "push")
        b.expect(0, "pull")
        a.expect(0, "edit", "x", "--text", "I love Mobile Services!")
        a.expect(0, "push")
        b.expect(0, "edit", "x", "--text", "I love Azure!")
        let push = b.expect(3, "push")
        #expect(push.out.contains("conflict (412)"), "\(push)")
        let conflict = try #require(b.conflicts.first)
        #expect(conflict["fields"] == ["text"])
        #expect(conflict["status"] == 412)
        #expect(conflict["server"]?["text"] == "I love Mobile Services!")
        #expect(conflict["client"]?["text"] == "I love Azure!")
        #expect(conflict["base"]?["text"] == "Mobile Services is Cool!")
        return (world, a, b)
    }

    /// Also on a real socket: the tutorial as people run it (the EndToEnd suites run the binaries).
    @Test("92: two devices, use client", arguments: [SyncWorld.Wire.socket, .inProcess])
    func useClient(_ wire: SyncWorld.Wire) throws {
        let (world, a, b) = try conflictWorld(wire)
        let v2 = world.row("x")?["version"]
        b.expect(0, "resolve", "x", "--use-client")
        world.resetLog()
        b.expect(0, "push")
        let patch = try #require(world.writes().first)
        #expect(patch.method == "PATCH")
        #expect(patch.headers["If-Match"] == "\"\(v2?.stringValue ?? "")\"")
        #expect(world.row("x")?["text"] == "I love Azure!")
        #expect(world.row("x")?["version"] != v2)
        a.expect(0, "pull")
        #expect(a.item("x")?["text"] == "I love Azure!")
        #expect(b.operations.isEmpty && b.conflicts.isEmpty)
    }

    @Test("93: two devices, use server") func useServer() throws {
        let (world, _, b) = try conflictWorld()
        let before = world.row("x")
        b.expect(0, "resolve", "x", "--use-server")
        #expect(b.item("x")?["text"] == "I love Mobile Services!")
        #expect(b.item("x")?["ms_version"] == before?["version"])
        #expect(b.operations.isEmpty)
        world.resetLog()
        b.expect(0, "push")
        #expect(world.writes().isEmpty)
        #expect(world.row("x") == before)
    }

    @Test("94: a REST client's PATCH, then use client or use server") func restClient() throws {
        for strategy in ["--use-client", "--use-server"] {
            let world = try SyncWorld(wire: .inProcess) { $0.appKey = "k" }
            let a = world.replica("A", environment: ["TODO_APP_KEY": "k"])
            a.expect(0, "add", "Mobile Services is Cool!", "--id", "x")
            a.expect(0, "push")
            let patch = world.raw("PATCH", "/tables/todoitem/x?__systemproperties=__version",
                                  body: ["id": "x", "text": "I love Azure!"], headers: [("x-zumo-application", "k")], g2: false)
            #expect(patch.status == 200)
            #expect(patch.json?["__version"]?.stringValue != nil)
            a.expect(0, "edit", "x", "--text", "I love Mobile Services!")
            a.expect(3, "push")
            a.expect(0, "resolve", "x", strategy)
            a.expect(0, "push")
            if strategy == "--use-client" {
                #expect(world.row("x")?["text"] == "I love Mobile Services!")
            } else {
                #expect(a.item("x")?["text"] == "I love Azure!")
                #expect(world.row("x")?["text"] == "I love Azure!")
            }
        }
    }
}
