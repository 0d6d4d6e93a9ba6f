import Testing
import TodoBasics
import TodoTestSupport

/// Issue 19 item 7, on the built binaries: versions, help for one command, and completion
/// scripts made from the command table.
@Suite(.serialized) struct ThingsPeopleLookForTests {
    static var build: String { Fixtures.root.parentPath.appendingPath(".build/debug") }

    static func sh(_ command: String) -> (code: Int32, out: String) {
        let dir = TempDirectory()
        defer { dir.remove() }
        let r = ProcessTests.sh(command, in: dir.path)
        return (r.code, r.out)
    }

    @Test func bothProgramsSayTheirVersion() {
        #expect(Self.sh("'\(Self.build)/todo' --version") == (0, "todo \(TodoVersion.current)\n"))
        #expect(Self.sh("'\(Self.build)/todo-server' --version") == (0, "todo-server \(TodoVersion.current)\n"))
    }

    @Test func helpNamesOneCommand() {
        let r = Self.sh("'\(Self.build)/todo' help table")
        #expect(r.code == 0 && r.out.hasPrefix("usage: todo table list | table rm NAME [--force]\n"), "\(r)")
    }

    /// The bash script, loaded in a real bash, completes commands and a command's options.
    @Test func theBashScriptCompletesCommandsAndOptions() {
        let todo = "'\(Self.build)/todo'"
        // `bash -c` via sh: run the checks in bash explicitly.
        let r = Self.sh("bash -c 'source <(\(todo) completion bash) && COMP_WORDS=(todo li) && COMP_CWORD=1 && _todo && echo \"${COMPREPLY[*]}\"'")
        #expect(r == (0, "list\n"), "\(r)")
        let opts = Self.sh("bash -c 'source <(\(todo) completion bash) && COMP_WORDS=(todo list --a) && COMP_CWORD=2 && _todo && echo \"${COMPREPLY[*]}\"'")
        #expect(opts == (0, "--all\n"), "\(opts)")
        let sub = Self.sh("bash -c 'source <(\(todo) completion bash) && COMP_WORDS=(todo ta) && COMP_CWORD=1 && _todo && echo \"${COMPREPLY[*]}\"'")
        #expect(sub == (0, "table\n"), "\(sub)")
    }

    @Test func theZshAndFishScriptsNameEveryCommand() {
        let zsh = Self.sh("'\(Self.build)/todo' completion zsh").out
        let fish = Self.sh("'\(Self.build)/todo' completion fish").out
        #expect(zsh.hasPrefix("#compdef todo\n"))
        for name in ["init", "add", "list", "table", "query", "completion", "doctor"] {
            #expect(zsh.contains("        \(name)) COMPREPLY="), "zsh: \(name)")
            #expect(fish.contains(" -a \(name) -d "), "fish: \(name)")
        }
        #expect(fish.contains("complete -c todo -n '__fish_seen_subcommand_from list' -l all -d 'every item'\n"))
        #expect(fish.contains("complete -c todo -n '__fish_seen_subcommand_from add' -l table -r -d "))
        let wrong = Self.sh("'\(Self.build)/todo' completion bsh")
        #expect(wrong.code == 2)
    }
}
