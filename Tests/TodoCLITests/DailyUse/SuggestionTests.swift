import Testing
@testable import TodoCLI
import TodoTestSupport

/// Issue 19 item 2: a typo of a command or an option gets "did you mean", and the suggestion,
/// run as given, works.
@Suite struct SuggestionTests {
    @Test func aMistypedCommandIsAnsweredWithTheCommandsItIsClosestTo() {
        let dir = TempDirectory()
        defer { dir.remove() }
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("init").code == 0)
        let r = cli.run("lsit")
        #expect(r.code == 2)
        #expect(r.err == """
            error: 'lsit' is not a todo command
            hint: did you mean 'todo list'? ('todo --help' lists every command)

            """)
        #expect(cli.run("list").code == 0)
        #expect(cli.run("stauts").err.contains("hint: did you mean 'todo status'?"))
        #expect(cli.run("don").err.contains("hint: did you mean 'todo done'?"))
        #expect(cli.run("pul").err.contains("hint: did you mean 'todo pull'?"))
        #expect(cli.run("frobnicate").err.hasSuffix("hint: see 'todo --help' for the list of commands\n"))
    }

    @Test func aMistypedOptionIsAnsweredWithTheOptionOfThatCommand() {
        let dir = TempDirectory()
        defer { dir.remove() }
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("init").code == 0)
        let r = cli.run("list", "--al")
        #expect(r.code == 2)
        #expect(r.err == """
            error: unknown option '--al' for 'todo list'
            hint: did you mean '--all'? (see 'todo list --help')

            """)
        #expect(cli.run("list", "--all").code == 0)
        #expect(cli.run("add", "x", "--tabel", "t").err.contains("hint: did you mean '--table'?"))
        #expect(cli.run("list", "-all").err.contains("hint: did you mean '--all'?"))
        #expect(cli.run("add", "x", "--table", "t").code == 0)
    }

    @Test func theDistanceCountsASwapOfNeighboursAsOneEdit() {
        #expect(Suggestion.distance("lsit", "list") == 1)
        #expect(Suggestion.distance("stauts", "status") == 1)
        #expect(Suggestion.distance("push", "pull") == 2)
        #expect(Suggestion.distance("", "abc") == 3)
        #expect(Suggestion.closest(to: "pusl", among: ["push", "pull", "list"]) == ["push", "pull"])
        #expect(Suggestion.closest(to: "lsit", among: ["init", "list", "edit"]) == ["list"])
    }
}
