import Testing
import TodoBasics
import TodoCLI
import TodoTestSupport

/// An operation file renamed by hand to another spelling of its name (`2.` for `0000000002.`)
/// was read by no command, which reads operations by the name todo gives them: `doctor` said
/// "ok", `status` counted it, and `push`, `log` and `diff` skipped it, so it was never sent.
/// Now doctor reports it and every command that reads the queue refuses it, naming the name to
/// give it back, and changes nothing.
@Suite struct MisnamedOperationTests {
    @Test func doctorReportsAnOperationFileNamedOtherwiseThanTodoNamesIt() throws {
        let (dir, cli, written, renamed) = try storeWithMisnamedOperation()
        defer { dir.remove() }
        let fs = LocalFileSystem(), ops = dir.path + "/.todo/operations"

        let doctor = cli.run("doctor")
        #expect(doctor.code == 1, "\(doctor)")
        #expect(doctor.out.hasPrefix(".todo/operations/\(renamed): not named as todo names its operations, so the commands "
                                     + "that read the queue refuse it; rename it to \(written)\n"), "\(doctor)")

        try fs.rename(ops + "/" + renamed, to: ops + "/" + written)
        #expect(cli.run("doctor").code == 0)
    }

    /// doctor's closing hint follows from what it found: a misnamed operation file is renamed
    /// (removing it, as the hint for a damaged file says, would lose the operation).
    @Test func doctorsHintSaysToRenameIt() throws {
        let (dir, cli, _, _) = try storeWithMisnamedOperation()
        defer { dir.remove() }
        let alone = cli.run("doctor")
        #expect(alone.code == 1 && alone.err == "hint: rename the misnamed operation file as its line says (removing it would lose its operation); "
                                                 + "'todo doctor' again shows what is left\n", "\(alone)")
        try LocalFileSystem().writeFile(dir.path + "/.todo/operations/notes.txt", Array("a note\n".utf8), sync: false)
        let both = cli.run("doctor")
        #expect(both.code == 1 && both.err == "hint: rename the misnamed operation file as its line says (removing it would lose its operation); "
                                                + "restore or remove the other files named above; 'todo doctor' again shows what is left\n", "\(both)")
    }

    @Test(arguments: [["status"], ["push"], ["log"], ["diff"], ["sync"], ["show", "milk"], ["edit", "milk", "--text", "x"], ["list"]])
    func everyCommandThatReadsTheQueueRefusesItAndChangesNothing(_ args: [String]) throws {
        let (dir, cli, written, renamed) = try storeWithMisnamedOperation()
        defer { dir.remove() }
        let before = snapshot(dir.path)

        let result = cli.run(args)
        #expect(result.code != 0, "\(args): \(result)")
        #expect(result.err.contains("error: .todo/operations/\(renamed): not named as todo names its operations\n"), "\(args): \(result)")
        #expect(result.err.contains("hint: rename it to \(written) (its name as todo wrote it; the file's content is the operation), then try again"),
                "\(args): \(result)")
        #expect(changedPaths(snapshot(dir.path), before) == [], "\(args) changed the store")
    }

    /// The same once `doctor` has rebuilt the index of pending operations with the misnamed file
    /// in it: `log` and `diff` then walk the index's pages, which must refuse it too.
    @Test(arguments: [["log"], ["log", "--json"], ["diff"], ["diff", "--json"], ["status"], ["show", "milk"]])
    func theIndexRebuiltWithItIsRefusedToo(_ args: [String]) throws {
        let (dir, cli, written, renamed) = try storeWithMisnamedOperation()
        defer { dir.remove() }
        #expect(cli.run("doctor").code == 1)
        #expect(LocalFileSystem().fileExists(dir.path + "/.todo/cache/pending/stamp"), "doctor rebuilt the index")
        let result = cli.run(args)
        #expect(result.code != 0, "\(args): \(result)")
        #expect(result.err.contains("error: .todo/operations/\(renamed): not named as todo names its operations\n"), "\(args): \(result)")
        #expect(result.err.contains("hint: rename it to \(written)"), "\(args): \(result)")
    }

    /// A store with one pending insert whose file is renamed without its leading zeros; the
    /// name todo wrote and the new one.
    private func storeWithMisnamedOperation() throws -> (TempDirectory, CLIHarness, written: String, renamed: String) {
        let dir = TempDirectory()
        Fixtures.copy("Stores/synced", to: dir.path)
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("add", "Buy milk", "--id", "milk").code == 0)
        let fs = LocalFileSystem()
        let ops = dir.path + "/.todo/operations"
        let written = try #require(try fs.listDirectory(ops)?.first { $0.hasSuffix(".insert.todoitem.milk.json") })
        let renamed = String(written.drop { $0 == "0" })
        #expect(renamed != written && renamed.first?.isNumber == true, "\(written)")
        try fs.rename(ops + "/" + written, to: ops + "/" + renamed)
        return (dir, cli, written, renamed)
    }
}
