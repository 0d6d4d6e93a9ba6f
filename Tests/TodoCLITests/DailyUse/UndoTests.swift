import Testing
import TodoBasics
import TodoModel
import TodoTestSupport

/// Issue 19 item 3: `todo undo` takes back the last local change that is still only here, says
/// what it did, and refuses (changing nothing) when there is none or it was sent.
@Suite struct UndoTests {
    static func synced() -> (TempDirectory, CLIHarness) {
        let dir = TempDirectory()
        Fixtures.copy("Stores/synced", to: dir.path)
        return (dir, CLIHarness(directory: dir.path))
    }

    static let rent = "d2a1c3f0-0000-4000-8000-000000000002"

    @Test func undoTakesBackChangesOneByOneThroughTheCollapsedQueue() {
        let (dir, cli) = Self.synced()
        defer { dir.remove() }
        let before = cli.run("show", "d2a1", "--json").out
        #expect(cli.run("edit", "d2a1", "--text", "Pay the rent").code == 0)
        #expect(cli.run("edit", "d2a1", "--text", "Pay rent twice").code == 0, "folds into update #1")
        let first = cli.run("undo")
        #expect(first.code == 0, "\(first)")
        #expect(first.out == """
            undid 'todo edit d2a1' (2024-05-01T09:00:03.000Z)
              text: "Pay rent twice" -> "Pay the rent"
              pending update #1 back as it was

            """)
        #expect(cli.run("show", "d2a1", "--json").out.contains(#""text": "Pay the rent""#))
        let second = cli.run("undo")
        #expect(second.out == """
            undid 'todo edit d2a1' (2024-05-01T09:00:02.000Z)
              text: "Pay the rent" -> "Pay rent"
              pending update #1 dropped

            """, "\(second)")
        #expect(cli.run("show", "d2a1", "--json").out == before, "the item is as it was")
        #expect(cli.run("status", "--short").out.split(separator: "\n").count == 1, "nothing pending")
        let none = cli.run("undo")
        #expect(none.code == 1)
        #expect(none.err == """
            error: nothing to undo: no local change (add, edit, done, undone, rm) is recorded here
            hint: 'todo log' lists the pending operations and receipts

            """)
        #expect(cli.run("log").out.contains("undo edit"), "each undo leaves a receipt")
        #expect(cli.run("doctor").code == 0)
    }

    @Test func undoOfAnAddRemovesItAndUndoOfRmBringsItBack() throws {
        let (dir, cli) = Self.synced()
        defer { dir.remove() }
        #expect(cli.run("add", "milk", "--id", "m1").code == 0)
        #expect(cli.run("rm", Self.rent).code == 0)
        let rm = cli.run("undo", "--json")
        let json = try #require(try? JSONValue.parse(Array(rm.out.utf8)))
        #expect(json["command"] == "rm" && json["id"]?.stringValue == Self.rent && json["table"] == "todoitem", "\(rm)")
        #expect(json["after"]?["item"] == .null && json["before"]?["item"]?["text"] == "Pay rent", "\(rm)")
        #expect(cli.run("show", Self.rent).code == 0)
        let add = cli.run("undo")
        #expect(add.out == "undid 'todo add m1' (2024-05-01T09:00:01.000Z)\n  the item is gone again\n  pending insert #1 dropped\n", "\(add)")
        #expect(cli.run("show", "m1").code == 1)
        #expect(cli.run("doctor").code == 0)
    }

    /// After `rm`, adding the same id works: the unsent delete becomes an update of the server's row.
    @Test func rmThenAddTheSameIDAgainIsAnUpdate() {
        let (dir, cli) = Self.synced()
        defer { dir.remove() }
        #expect(cli.run("rm", Self.rent).code == 0)
        let add = cli.run("add", "Pay rent today", "--id", Self.rent)
        #expect(add.code == 0, "\(add)")
        let status = cli.run("status", "--short")
        #expect(status.out == "## http://127.0.0.1:8080 (mobile-apps)\nU  todoitem  d2a1  #1\n", "\(status)")
        #expect(cli.run("log").out.contains("collapse delete+insert"))
        // The same fields as the server's copy: nothing left to push.
        #expect(cli.run("rm", Self.rent).code == 0)
        #expect(cli.run("add", "Pay rent", "--id", Self.rent, "--set", "note=\"call Bob\"", "--set", "complete=true").code == 0)
        #expect(cli.run("status", "--short").out == "## http://127.0.0.1:8080 (mobile-apps)\n", "back to its server copy")
        #expect(cli.run("doctor").code == 0)
    }

    /// The built binary, as a user types it: a typo'd edit, then undo.
    @Test func theBuiltTodoUndoesATypo() {
        let dir = TempDirectory()
        defer { dir.remove() }
        Fixtures.copy("Stores/synced", to: dir.path)
        let todo = "'\(ProcessTests.binary)'"
        let r = ProcessTests.sh("\(todo) edit d2a1 --text 'Pay rnet' && \(todo) undo && \(todo) status --short", in: dir.path)
        #expect(r.code == 0, "\(r)")
        #expect(r.out.hasSuffix("""
            undid 'todo edit d2a1' (\(r.out.split(separator: "(")[2].prefix(24)))
              text: "Pay rnet" -> "Pay rent"
              pending update #1 dropped
            ## http://127.0.0.1:8080 (mobile-apps)

            """), "\(r)")
    }

    @Test func aChangeThatWasSentOrChangedSinceIsNotUndone() throws {
        let (dir, cli) = Self.synced()
        defer { dir.remove() }
        #expect(cli.run("edit", "d2a1", "--text", "x").code == 0)
        // A push that sent the update and did not hear back: the operation is sealed.
        let opPath = dir.sub(".todo/operations/0000000001.update.todoitem.\(Self.rent).json")
        let fs = LocalFileSystem()
        let text = String(decoding: try #require(try fs.readFile(opPath)), as: UTF8.self)
        try fs.writeFile(opPath, Array(text.replacingOccurrences(of: "\"attempted\": false", with: "\"attempted\": true").utf8), sync: false)
        let before = snapshot(dir.path)
        let sealed = cli.run("undo")
        #expect(sealed.code == 1)
        #expect(sealed.err == """
            error: the last change, 'todo edit d2a1' (2024-05-01T09:00:01.000Z), may already be on the server: a push sent its update #1 and did not hear back
            hint: run 'todo push' to settle it, then change the item again

            """)
        #expect(changedPaths(snapshot(dir.path), before) == [], "a refusal changes nothing")
        // Pushed: the operation is gone.
        try fs.removeFile(opPath)
        let pushed = cli.run("undo")
        #expect(pushed.err.hasPrefix("error: the last change, 'todo edit d2a1' (2024-05-01T09:00:01.000Z), was pushed already (its update #1 is no longer pending); undo takes back only changes not yet pushed\n"), "\(pushed)")
    }
}
