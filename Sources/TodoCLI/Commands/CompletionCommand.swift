/// `todo completion bash|zsh|fish`: a completion script made from the command table, so it
/// always offers exactly the commands and options this todo has.
struct CompletionCommand: Command {
    static let name = "completion"
    static let summary = "print a shell completion script (bash, zsh or fish)"
    static let usage = "completion bash|zsh|fish"
    static let discussion = """
        Prints a script that completes todo's commands and each command's options. Load it with
          bash:  source <(todo completion bash)         (or save it in ~/.local/share/bash-completion/completions/todo)
          zsh:   source <(todo completion zsh)          (uses zsh's bash completion support)
          fish:  todo completion fish > ~/.config/fish/completions/todo.fish
        """
    static let options: [OptionSpec] = []

    /// The shell the script is for.
    enum Options: String, Equatable { case bash, zsh, fish }

    static func parse(_ args: ParsedArguments) throws(CLIError) -> Options {
        let shell = try positionals(args, min: 1, max: 1, names: "the shell: bash, zsh or fish")[0]
        guard let options = Options(rawValue: shell) else {
            var error = CLIError.usage("no completion for '\(shell)'; todo has bash, zsh and fish", command: name)
            if let hint = Suggestion.hint(for: shell, among: ["bash", "zsh", "fish"], prefix: "todo completion ") { error.hint = hint }
            throw error
        }
        return options
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        switch options {
        case .bash: ctx.console.out(CompletionScript.bash())
        case .zsh: ctx.console.out(CompletionScript.zsh())
        case .fish: ctx.console.out(CompletionScript.fish())
        }
        return ExitCode.ok
    }
}

/// The scripts, from `CommandTable.all`.
enum CompletionScript {
    static var commands: [(name: String, summary: String, options: [OptionSpec])] {
        CommandTable.all.map { type in (type.name, type.summary, type.options + [OptionSpec("--help", .flag, "show this help")]) }
    }

    static func bash() -> String {
        var lines = [
            "# bash completion for todo (made by 'todo completion bash')",
            "_todo() {",
            "    local cur=\"${COMP_WORDS[COMP_CWORD]}\"",
            "    if [ \"$COMP_CWORD\" -eq 1 ]; then",
            "        COMPREPLY=($(compgen -W \"\(commands.map(\.name).joined(separator: " ")) help --help --version\" -- \"$cur\"))",
            "        return",
            "    fi",
            "    case \"${COMP_WORDS[1]}\" in",
        ]
        for c in commands {
            lines.append("        \(c.name)) COMPREPLY=($(compgen -W \"\(c.options.map(\.name).joined(separator: " "))\" -- \"$cur\")) ;;")
        }
        lines.append("        help) COMPREPLY=($(compgen -W \"\(commands.map(\.name).joined(separator: " "))\" -- \"$cur\")) ;;")
        lines += ["    esac", "}", "complete -o default -F _todo todo"]
        return lines.joined(separator: "\n")
    }

    /// zsh runs the bash script through its bash completion support.
    static func zsh() -> String {
        ["#compdef todo", "# zsh completion for todo (made by 'todo completion zsh')",
         "autoload -U +X bashcompinit && bashcompinit", bash()].joined(separator: "\n")
    }

    static func fish() -> String {
        var lines = ["# fish completion for todo (made by 'todo completion fish')", "complete -c todo -f"]
        let names = commands.map(\.name).joined(separator: " ")
        for c in commands {
            lines.append("complete -c todo -n 'not __fish_seen_subcommand_from \(names)' -a \(c.name) -d \(quoted(c.summary))")
        }
        for c in commands {
            for option in c.options {
                let takesValue = option.kind != .flag ? " -r" : ""
                lines.append("complete -c todo -n '__fish_seen_subcommand_from \(c.name)' -l \(option.name.dropFirst(2))\(takesValue) -d \(quoted(option.help))")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// A fish single-quoted string.
    private static func quoted(_ s: String) -> String {
        var out = "'"
        for ch in s {
            if ch == "\\" || ch == "'" { out.append("\\") }
            out.append(ch)
        }
        return out + "'"
    }
}
