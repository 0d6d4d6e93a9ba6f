import Testing
import TodoBasics
import TodoModel
import TodoStore
import TodoTestSupport

/// Issue 15 item 8: files people edit. An item file (or the copy its last operation sends)
/// edited by hand is reported by every command that reads it, changes and pushes refuse to build
/// on it, `edit --adopt` records it as a change and `edit --discard` puts back what todo wrote.
@Suite struct HandEditTests {
    typealias S = ConflictStores
    static let d265File = "tables/todoitem/items/d265929e-b17b-42d1-8fab-d0adf26486fa.json"
    static let d265Path = ".todo/" + d265File

    /// The synced store with its items rewritten by todo (so they carry `ms_written`, as every
    /// item todo writes does; the fixture predates it).
    static func synced() throws -> (TempDirectory, CLIHarness) {
        let dir = TempDirectory()
        Fixtures.copy("Stores/synced", to: dir.path)
        let store = try S.open(dir.path)
        defer { store.close() }
        var tx = try store.transaction()
        for item in try store.items(table: "todoitem") { tx.putItem(item, table: "todoitem") }
        try store.commit(tx)
        return (dir, CLIHarness(directory: dir.path, environment: ["TODO_RETRY_WAIT_SCALE": "0"]))
    }

    /// Edits a store file as a person would: replaces text in it.
    static func handEdit(_ dir: String, _ relative: String, _ old: String, _ new: String) throws {
        let fs = LocalFileSystem()
        let path = dir + "/.todo/" + relative
        let text = String(decoding: try #require(try fs.readFile(path)), as: UTF8.self)
        #expect(text.contains(old), "\(relative) holds \(old)")
        try fs.writeFile(path, Array(text.replacingOccurrences(of: old, with: new).utf8), sync: false)
    }

    static let itemWarning = """
        warning: \(d265Path) was edited by hand (text changed), and todo has not recorded it as a change
        hint: record it with 'todo edit D265929E --adopt', or put back what todo wrote with 'todo edit D265929E --discard'

        """

    @Test func anItemEditedByHandIsReportedByEveryCommandThatReadsIt() throws {
        let (dir, cli) = try Self.synced()
        defer { dir.remove() }
        try Self.handEdit(dir.path, Self.d265File, "Mobile Services is Cool!", "Edited by hand")
        let before = snapshot(dir.path)

        let status = cli.run("status")
        #expect(status.code == 0 && status.err == "")
        #expect(status.out.contains("""

            Edited by hand, not recorded as changes: 1
              (use "todo edit D265 --adopt" to record the edit as a change, "todo edit D265 --discard" to put back what todo wrote)
              (until then, changes to these items stop, and so does a push or pull that would overwrite them)
              todoitem  D265  text changed

            """), "\(status)")
        #expect(cli.run("status", "--short").out.hasSuffix("H  todoitem  D265  text changed\n"))
        let json = try JSONValue.parse(Array(cli.run("status", "--json").out.utf8))
        #expect(json["editedByHand"] == [["table": "todoitem", "id": .string(S.d265), "path": .string(Self.d265Path),
                                          "file": "item", "fields": ["text"]]])

        let list = cli.run("list", "--all")
        #expect(list.code == 0 && list.out.contains("D265  [ ] Edited by hand  (edited by hand)\n") && list.err == Self.itemWarning, "\(list)")
        let show = cli.run("show", "d265")
        #expect(show.code == 0 && show.out.contains("edited by hand:  text changed (not recorded)\n") && show.err == Self.itemWarning, "\(show)")
        let diff = cli.run("diff")
        #expect(diff.code == 0 && diff.out == """
            todoitem/D265929E-B17B-42D1-8FAB-D0ADF26486FA  edited by hand, not recorded  (base AAAAAAAAAAE=)
              (its file was edited by hand: text changed; 'todo edit D265929E --adopt' records it, '--discard' puts back what todo wrote)
              ~ text: "Mobile Services is Cool!" -> "Edited by hand"

            """, "\(diff)")
        let doctor = cli.run("doctor")
        #expect(doctor.code == 1 && doctor.out.hasPrefix("""
            \(Self.d265Path): was edited by hand (text changed), and todo has not recorded it as a change; record it with 'todo edit D265929E --adopt', or put back what todo wrote with 'todo edit D265929E --discard'

            """), "\(doctor)")

        // Changes refuse to build on it, naming it.
        for args in [["edit", "d265", "--complete"], ["done", "d265"], ["rm", "d265"], ["add", "x", "--id", S.d265]] {
            let r = cli.run(args)
            #expect(r.code == 1 && r.out == "" && r.err == Self.itemWarning.replacingOccurrences(of: "warning: ", with: "error: "),
                    "todo \(args.joined(separator: " ")): \(r)")
        }
        #expect(changedPaths(snapshot(dir.path), before) == [], "nothing changed")
    }

    @Test func adoptRecordsTheEditAsAnUpdateOnTheLastServerCopy() throws {
        let (dir, cli) = try Self.synced()
        defer { dir.remove() }
        // Text changed, `complete` removed, `note` added.
        try Self.handEdit(dir.path, Self.d265File, "\"complete\": false,\n", "")
        try Self.handEdit(dir.path, Self.d265File, "Mobile Services is Cool!\"", "Edited by hand\",\n  \"note\": \"mine\"")
        let r = cli.run("edit", "d265", "--adopt")
        #expect(r.code == 0 && r.err == "" && r.out == "adopted the edit of D265 (update #1 queued)\n", "\(r)")
        let op = try #require(S.record(dir.path, "operations/0000000001.update.todoitem.d265929e-b17b-42d1-8fab-d0adf26486fa.json"))
        #expect(op["item"] == ["id": .string(S.d265), "text": "Edited by hand", "note": "mine"])
        #expect(op["base"] == ["id": .string(S.d265), "text": "Mobile Services is Cool!", "complete": false,
                               "ms_createdAt": "2024-05-01T09:00:00.000Z", "ms_updatedAt": "2024-05-01T09:00:00.000Z",
                               "ms_version": "AAAAAAAAAAE="], "the base is the last server copy, so the push clears `complete`")
        #expect(cli.run("status", "--short").out.hasSuffix("U  todoitem  d265  #1\n"))
        #expect(cli.run("diff", "d265").out.contains("  - complete: false\n  + note: \"mine\"\n  ~ text: \"Mobile Services is Cool!\" -> \"Edited by hand\"\n"))
        #expect(cli.run("doctor").code == 0)
        #expect(cli.run("edit", "d265", "--complete").code == 0, "the item can be changed again")
    }

    @Test func discardPutsBackWhatTodoWroteAndKeepsTheValuesInAReceipt() throws {
        let (dir, cli) = try Self.synced()
        defer { dir.remove() }
        let original = try #require(S.record(dir.path, Self.d265File))
        try Self.handEdit(dir.path, Self.d265File, "Mobile Services is Cool!", "Edited by hand")
        let r = cli.run("edit", "d265", "--discard")
        #expect(r.code == 0 && r.out == "put back D265929E as todo wrote it; the values you wrote are in receipt #1 (see 'todo log')\n", "\(r)")
        #expect(S.record(dir.path, Self.d265File) == original)
        let receipt = try #require(S.record(dir.path, "receipts/0000000001.discard.todoitem.d265929e-b17b-42d1-8fab-d0adf26486fa.json"))
        #expect(receipt["lost"] == ["client": ["text": "Edited by hand"]] && receipt["rule"] == "item" && receipt["operation"] == .null)
        #expect(cli.run("log").out.contains("  1  2024-05-01T09:00:01.000Z  discard item  todoitem  D265  lost client: text=\"Edited by hand\""))
        #expect(cli.run("doctor").code == 0 && cli.run("status", "--short").out == "## http://127.0.0.1:8080 (mobile-apps)\n")
        #expect(cli.run("edit", "d265", "--discard").out == "D265929E has no edits by hand; nothing to discard\n")
    }

    @Test func anOperationEditedByHandIsReportedAndSettled() throws {
        let (dir, cli) = try Self.synced()
        defer { dir.remove() }
        #expect(cli.run("edit", "d265", "--text", "I love Azure!").code == 0)
        let opFile = "operations/0000000001.update.todoitem.d265929e-b17b-42d1-8fab-d0adf26486fa.json"
        let before = snapshot(dir.path)
        try Self.handEdit(dir.path, opFile, "I love Azure!", "I love AWS")
        let edited = snapshot(dir.path)

        #expect(cli.run("status", "--short").out.hasSuffix("H  todoitem  D265  operation #1 sends text changed\n"))
        let message = ".todo/\(opFile) was edited by hand (operation #1 sends text changed, unlike the item), and todo has not recorded it"
        let hint = "keep it (the item then shows what the operation sends) with 'todo edit D265929E --adopt', or put back what todo wrote with 'todo edit D265929E --discard'"
        let edit = cli.run("edit", "d265", "--complete")
        #expect(edit.code == 1 && edit.err == "error: \(message)\nhint: \(hint)\n", "\(edit)")
        let push = cli.run("push")
        #expect(push.code == 1 && push.err == "error: nothing was pushed: \(message)\nhint: \(hint)\n", "\(push)")
        #expect(cli.run("doctor").out.contains(".todo/\(opFile): was edited by hand (operation #1 sends text changed, unlike the item)"))
        #expect(changedPaths(snapshot(dir.path), edited) == [])

        // --discard puts the operation back, keeping the value in a receipt.
        let discarded = cli.run("edit", "d265", "--discard")
        #expect(discarded.code == 0, "\(discarded)")
        #expect(changedPaths(snapshot(dir.path), before).filter { !$0.hasPrefix(".todo/receipts/") && $0 != ".todo/state.json" } == [])
        #expect(S.record(dir.path, "receipts/0000000001.discard.todoitem.d265929e-b17b-42d1-8fab-d0adf26486fa.json")?["lost"]
            == ["client": ["text": "I love AWS"]])

        // --adopt keeps an edit of the operation: the item takes what it sends.
        try Self.handEdit(dir.path, opFile, "I love Azure!", "I love AWS")
        let adopted = cli.run("edit", "d265", "--adopt")
        #expect(adopted.out == "adopted the edit of D265929E's operation #1: the item now shows what it sends\n", "\(adopted)")
        #expect(S.record(dir.path, Self.d265File)?["text"] == "I love AWS")
        #expect(cli.run("doctor").code == 0)
    }

    @Test func aPushNeverOverwritesAnItemEditedByHand() throws {
        let (dir, cli) = try Self.synced()
        defer { dir.remove() }
        #expect(cli.run("edit", "d265", "--text", "I love Azure!").code == 0)
        try Self.handEdit(dir.path, Self.d265File, "I love Azure!", "Edited by hand")
        let before = snapshot(dir.path)
        let push = cli.run("push")
        #expect(push.code == 1 && push.err == Self.itemWarning.replacingOccurrences(of: "warning: ", with: "error: nothing was pushed: "), "\(push)")
        #expect(changedPaths(snapshot(dir.path), before) == [])
        // Adopted, the edit folds into the pending update.
        #expect(cli.run("edit", "d265", "--adopt").out == "adopted the edit of D265 (folded into pending update #1)\n")
        #expect(S.record(dir.path, "operations/0000000001.update.todoitem.d265929e-b17b-42d1-8fab-d0adf26486fa.json")?["item"]?["text"] == "Edited by hand")
    }

    @Test func bothEditedAdoptRefusesAndDiscardPutsBackBoth() throws {
        let (dir, cli) = try Self.synced()
        defer { dir.remove() }
        #expect(cli.run("edit", "d265", "--text", "I love Azure!").code == 0)
        let opFile = "operations/0000000001.update.todoitem.d265929e-b17b-42d1-8fab-d0adf26486fa.json"
        try Self.handEdit(dir.path, opFile, "I love Azure!", "op edit")
        try Self.handEdit(dir.path, Self.d265File, "I love Azure!", "item edit")
        let r = cli.run("edit", "d265", "--adopt")
        #expect(r.code == 1 && r.err == """
            error: both the item file of D265929E and its operation #1 were edited by hand, differently
            hint: put one of them back as it was; 'todo edit D265929E --discard' puts back both (a receipt keeps your values)

            """, "\(r)")
        #expect(cli.run("edit", "d265", "--discard").out == "put back D265929E as todo wrote it; the values you wrote are in receipt #1 and #2 (see 'todo log')\n")
        #expect(S.record(dir.path, Self.d265File)?["text"] == "I love Azure!" && cli.run("doctor").code == 0)
    }
}
