import Testing
import TodoBasics
import TodoModel
import TodoTestSupport

/// `todo resolve ID --edit` (sync.md §8.3.5) with EDITOR set to a small shell script.
@Suite struct ResolveEditTests {
    typealias S = ConflictStores

    /// A conflict store, a temp folder for the editor's file, and an editor script whose body
    /// gets the file as "$1" (and a copy of the proposal is saved in `proposal.json` beside it).
    struct Setup {
        let dir = TempDirectory()
        let tmp = TempDirectory("todo-edit")
        let cli: CLIHarness

        init(script body: String, editorVariable: String = "EDITOR", extra: [String: String] = [:]) {
            Fixtures.copy("Stores/conflict", to: dir.path)
            let script = tmp.sub("editor.sh")
            let text = "cp \"$1\" '\(tmp.sub("proposal.json"))'\n" + body + "\n"
            try? LocalFileSystem().writeFile(script, Array(text.utf8), sync: false)
            let environment = [editorVariable: "sh '\(script)'", "TMPDIR": tmp.path].merging(extra) { a, _ in a }
            cli = CLIHarness(directory: dir.path, environment: environment)
        }

        func remove() {
            dir.remove()
            tmp.remove()
        }

        /// Editor files left in the temp folder.
        var leftovers: [String] {
            ((try? LocalFileSystem().listDirectory(tmp.path)) ?? nil)?.filter { $0.hasPrefix("todo-resolve-") } ?? []
        }

        func read(_ name: String) -> String? {
            ((try? LocalFileSystem().readFile(tmp.sub(name))) ?? nil).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    @Test func theSavedObjectResolves() throws {
        let s = Setup(script: "printf '%s' '{\"text\": \"edited\", \"complete\": true}' > \"$1\"")
        defer { s.remove() }
        let r = s.cli.run("resolve", "d265", "--edit")
        #expect(r.code == 0)
        #expect(r.out == "resolved D265929E using your resolution; run 'todo push' to publish\n")
        let lines = r.err.split(separator: "\n").map(String.init)
        #expect(lines.first == "D265929E: changed on both sides; clashing fields: text", "the clashing fields come first")
        #expect(lines.count == 2 && lines[1].hasPrefix("editing the proposed resolution in \(s.tmp.path)/todo-resolve-D265929E-")
            && lines[1].hasSuffix(".jsonc (quit without changing it, or save an empty file, to abort)"))
        // The three copies as comments, then the proposal: the merge, the clashing text taking
        // the client's value.
        #expect(s.read("proposal.json") == Self.proposal)
        let item = try #require(S.record(s.dir.path, "tables/todoitem/items/d265929e-b17b-42d1-8fab-d0adf26486fa.json"))
        #expect(item["text"] == "edited" && item["complete"] == true)
        #expect(S.names(s.dir.path, "conflicts").isEmpty && s.leftovers.isEmpty, "the temporary file is removed")
        #expect(s.cli.run("doctor").code == 0)
    }

    /// What `--edit` opens for the conflict fixture (issue 15 item 7: base, client and server shown).
    static let proposal = """
        // Delete this line to take the proposal below as it is; saved unchanged, it resolves nothing.
        // Resolving \(S.d265) (changed on both sides; clashing fields: text),
        // recorded in \(S.d265Conflict).
        //
        // Edit the item below: it becomes the item here and, after 'todo push', on the server.
        // Every field of the copies must be there: give it the value to keep, or null to remove it.
        // Write "delete" instead of the object to delete the item. Lines starting with // are ignored.
        //
        // base (the server copy your change started from), version AAAAAAAAAAE=:
        //   {
        //     "complete": false,
        //     "text": "Mobile Services is Cool!"
        //   }
        //
        // client (yours):
        //   {
        //     "complete": false,
        //     "text": "I love Azure!"
        //   }
        //
        // server (the server copy now), version AAAAAAAAAAI=:
        //   {
        //     "complete": false,
        //     "text": "I love Mobile Services!"
        //   }
        {
          "complete": false,
          "id": "\(S.d265)",
          "text": "I love Azure!"
        }

        """

    @Test func quittingWithoutAChangeResolvesNothing() {
        let s = Setup(script: ":")
        defer { s.remove() }
        let before = snapshot(s.dir.path)
        let r = s.cli.run("resolve", "d265", "--edit")
        #expect(r.code == 1 && r.out == "")
        #expect(r.err.hasSuffix("""
            error: the proposal was not changed: nothing resolved, nothing changed
            hint: run 'todo resolve D265929E --edit' again and save your resolution (to take the proposal as it is, delete its first line), or use --use-client, --use-server or --merge

            """), "\(r)")
        #expect(changedPaths(snapshot(s.dir.path), before) == [] && s.leftovers.isEmpty)
    }

    @Test func deletingTheFirstLineTakesTheProposal() throws {
        let s = Setup(script: "sed -i 1d \"$1\"")
        defer { s.remove() }
        let r = s.cli.run("resolve", "d265", "--edit")
        #expect(r.code == 0 && r.out == "resolved D265929E using your resolution; run 'todo push' to publish\n", "\(r)")
        let op = try #require(S.record(s.dir.path, "operations/0000000001.update.todoitem.d265929e-b17b-42d1-8fab-d0adf26486fa.json"))
        #expect(op["item"] == ["id": .string(S.d265), "text": "I love Azure!", "complete": false])
        #expect(op["base"]?["ms_version"] == "AAAAAAAAAAI=")
    }

    @Test func commentsAnywhereAreIgnored() throws {
        let s = Setup(script: "printf '// mine\\n{\\n  // keep it short\\n  \"text\": \"both\", \"complete\": null\\n}\\n' > \"$1\"")
        defer { s.remove() }
        let r = s.cli.run("resolve", "d265", "--edit")
        #expect(r.code == 0, "\(r)")
        let item = try #require(S.record(s.dir.path, "tables/todoitem/items/d265929e-b17b-42d1-8fab-d0adf26486fa.json"))
        #expect(item["text"] == "both" && item["complete"] == nil)
    }

    @Test func anEditLeavingOutAFieldIsRefusedAndKept() throws {
        let s = Setup(script: "printf '{\"text\": \"both\"}' > \"$1\"")
        defer { s.remove() }
        let before = snapshot(s.dir.path)
        let r = s.cli.run("resolve", "d265", "--edit")
        #expect(r.code == 1)
        let file = try #require(s.leftovers.first)
        #expect(r.err.contains("error: incomplete resolution for \(S.d265) in \(s.tmp.path)/\(file): it leaves out \"complete\", which the base, client or server copy has\n"), "\(r)")
        #expect(r.err.contains("hint: your text is kept in \(s.tmp.path)/\(file)"))
        #expect(changedPaths(snapshot(s.dir.path), before) == [])
    }

    @Test func visualIsUsedWithoutEditorAndDeleteIsAccepted() {
        let s = Setup(script: "printf '\"delete\"' > \"$1\"", editorVariable: "VISUAL")
        defer { s.remove() }
        let r = s.cli.run("resolve", "d265", "--edit")
        #expect(r.out == "resolved D265929E by deleting the item; run 'todo push' to publish\n")
        #expect(S.names(s.dir.path, "operations") == ["0000000001.delete.todoitem.d265929e-b17b-42d1-8fab-d0adf26486fa.json"])
    }

    @Test func anEmptyFileAborts() {
        let s = Setup(script: ": > \"$1\"")
        defer { s.remove() }
        let before = snapshot(s.dir.path)
        let r = s.cli.run("resolve", "d265", "--edit")
        #expect(r.code == 1)
        #expect(r.err.hasSuffix("""
            error: the resolution is empty: aborted, nothing changed
            hint: run 'todo resolve D265929E --edit' again, or use --use-client, --use-server or --merge

            """))
        #expect(changedPaths(snapshot(s.dir.path), before) == [] && s.leftovers.isEmpty)
    }

    @Test func invalidJSONKeepsTheText() throws {
        let s = Setup(script: "printf '{\"text\": ' > \"$1\"")
        defer { s.remove() }
        let before = snapshot(s.dir.path)
        let r = s.cli.run("resolve", "d265", "--edit")
        #expect(r.code == 1)
        let file = try #require(s.leftovers.first)
        #expect(s.read(file) == "{\"text\": ", "the text is not lost")
        #expect(r.err.contains("error: \(s.tmp.path)/\(file): invalid JSON: "))
        #expect(r.err.contains("hint: your text is kept in \(s.tmp.path)/\(file); fix it and run 'todo resolve D265929E --edit' again"))
        #expect(changedPaths(snapshot(s.dir.path), before) == [])
    }

    @Test func anInvalidItemKeepsTheText() throws {
        let s = Setup(script: "printf '{\"text\": 5}' > \"$1\"")
        defer { s.remove() }
        let before = snapshot(s.dir.path)
        let r = s.cli.run("resolve", "d265", "--edit")
        #expect(r.code == 1)
        let file = try #require(s.leftovers.first)
        #expect(r.err.contains("error: invalid resolution for \(S.d265) in \(s.tmp.path)/\(file): \"text\" must be a string, not number\n"))
        #expect(r.err.contains("hint: your text is kept in \(s.tmp.path)/\(file); fix it and save it as 'resolved' in \(S.d265Conflict)"))
        #expect(changedPaths(snapshot(s.dir.path), before) == [])
    }

    @Test func aFailingEditorChangesNothing() {
        let s = Setup(script: "exit 3")
        defer { s.remove() }
        let before = snapshot(s.dir.path)
        let r = s.cli.run("resolve", "d265", "--edit")
        #expect(r.code == 1)
        #expect(r.err.contains("error: the editor 'sh '\(s.tmp.sub("editor.sh"))'' exited with status 3; nothing changed\n"))
        #expect(changedPaths(snapshot(s.dir.path), before) == [] && s.leftovers.isEmpty)
    }

    @Test func editorWinsOverVisual() {
        let s = Setup(script: "printf '\"delete\"' > \"$1\"", extra: ["VISUAL": "false"])
        defer { s.remove() }
        #expect(s.cli.run("resolve", "d265", "--edit").code == 0)
    }
}
