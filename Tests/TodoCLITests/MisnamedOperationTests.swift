import Testing
import TodoBasics
import TodoCLI
import TodoTestSupport

/// An operation file renamed by hand to another spelling of its name (`2.` for `0000000002.`)
/// is read by no command, which reads operations by the name todo gives them: `doctor` said
/// "ok" and counted one operation fewer. It is a problem now, with the name to give it back.
@Suite struct MisnamedOperationTests {
    @Test func doctorReportsAnOperationFileNamedOtherwiseThanTodoNamesIt() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        Fixtures.copy("Stores/synced", to: dir.path)
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("add", "Buy milk", "--id", "milk").code == 0)
        let fs = LocalFileSystem()
        let ops = dir.path + "/.todo/operations"
        let written = try #require(try fs.listDirectory(ops)?.first { $0.hasSuffix(".insert.todoitem.milk.json") })
        let renamed = String(written.drop { $0 == "0" })
        #expect(renamed != written && renamed.first?.isNumber == true, "\(written)")
        try fs.rename(ops + "/" + written, to: ops + "/" + renamed)

        let doctor = cli.run("doctor")
        #expect(doctor.code == 1, "\(doctor)")
        #expect(doctor.out.hasPrefix(".todo/operations/\(renamed): not named as todo names its operations, so push, log and diff "
                                     + "do not read it; rename it to \(written)\n"), "\(doctor)")

        try fs.rename(ops + "/" + renamed, to: ops + "/" + written)
        #expect(cli.run("doctor").code == 0)
    }
}
