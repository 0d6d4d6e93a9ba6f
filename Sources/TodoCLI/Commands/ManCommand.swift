import TodoBasics

/// `todo man`: the manual page, in roff, made from the command table (each command's usage,
/// discussion and options), so `man todo` never drifts from `todo COMMAND --help`.
struct ManCommand: Command {
    static let name = "man"
    static let summary = "print the manual page (roff), for 'man todo'"
    static let usage = "man"
    static let discussion = """
        Prints todo's manual page in roff, made from the same command definitions as
        'todo COMMAND --help'. Install it where man looks, e.g.
          todo man > ~/.local/share/man/man1/todo.1     (then: man todo)
        or read it at once with: todo man | man -l -
        """
    static let options: [OptionSpec] = []

    /// `man` takes no options.
    struct Options: Equatable {}

    static func parse(_ args: ParsedArguments) throws(CLIError) -> Options {
        _ = try positionals(args, min: 0, max: 0, names: "")
        return Options()
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        ctx.console.out(ManPage.roff())
        return ExitCode.ok
    }
}

/// The page, section 1. Roff is escaped here once: a backslash becomes `\e`, a line that would
/// start with `.` or `'` (a request) gets `\&` in front, and option dashes are `\-`.
enum ManPage {
    static func roff() -> String {
        var lines = [
            ".TH TODO 1 \"\" \"todo \(TodoVersion.current)\" \"User Commands\"",
            ".SH NAME",
            "todo \\- an offline-first store of todo items (and any JSON records) with git-style sync",
            ".SH SYNOPSIS",
            ".B todo",
            "\\fICOMMAND\\fR [\\fIOPTIONS\\fR]",
            ".br",
            ".B todo help",
            "\\fICOMMAND\\fR",
            ".SH DESCRIPTION",
        ]
        lines += text("""
            Every change is a plain JSON file in a .todo directory: the items, one file per pending
            operation, per-query delta tokens, conflicts and receipts. Replicas sync with a table server
            (todo-server) that speaks the HTTP table protocol of Azure Mobile Services and Mobile Apps.
            'todo status', 'todo log' and 'todo diff' work like their git counterparts.
            """)
        lines.append(".SH COMMANDS")
        for command in CommandTable.all {
            lines.append(".SS \"todo \(escape(command.usage).replacing("\"", with: "\\(dq"))\"")
            lines += text(command.summary.prefix(1).uppercased() + command.summary.dropFirst() + ".")
            lines.append(".PP")
            lines += text(command.discussion)
            for option in command.options {
                lines.append(".TP")
                lines.append("\\fB\(escape(option.name))\\fR" + argument(option.kind))
                lines += text(option.help)
            }
        }
        lines.append(".SH OPTIONS")
        lines += [".TP", ".B \\-\\-help"] + text("Every command takes it: the command's usage, what it does, and its options.")
        lines += [".TP", ".B \\-\\-version"] + text("Prints todo's version.")
        lines.append(".SH EXIT STATUS")
        for (code, meaning) in [("0", "ok ('status' is 0 even with open conflicts)"),
                                ("1", "error: not a replica, lock held, corrupt file, no such item, refused change"),
                                ("2", "usage: unknown option, missing argument, options that exclude each other"),
                                ("3", "push, pull or sync finished and conflicts are open"),
                                ("4", "push, pull or sync stopped (network, 401/403, 429 or 5xx after retries); nothing is lost")] {
            lines += [".TP", ".B \(code)"] + text(meaning)
        }
        lines.append(".SH ENVIRONMENT")
        for (name, meaning) in [("TODO_DIR", "the replica to use, instead of the .todo found from the working directory upwards"),
                                ("TODO_APP_KEY", "the app key, when the replica has no .todo/app-key"),
                                ("TODO_AUTH_TOKEN", "a user's token, when the replica has no .todo/auth-token"),
                                ("EDITOR, VISUAL", "the editor of 'todo resolve --edit' (default vi)")] {
            lines += [".TP", ".B \(name)"] + text(meaning)
        }
        lines.append(".SH FILES")
        lines += [".TP", ".I .todo/"] + text("the replica: config.json, items under tables/, the queue under operations/, conflicts/, receipts/")
        lines.append(".SH SEE ALSO")
        lines += text("todo-server --help; the README of the todo project, and its docs/ folder (protocol.md, sync.md).")
        return lines.joined(separator: "\n")
    }

    /// Prose as roff text lines; lines indented in the source (examples) keep their line breaks.
    static func text(_ prose: String) -> [String] {
        var out: [String] = []
        for line in prose.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(" ") {
                out += [".br", escape(String(line))]
            } else if !line.isEmpty {
                out.append(escape(String(line)))
            }
        }
        return out
    }

    static func escape(_ text: String) -> String {
        var s = text.replacing("\\", with: "\\e")
        s = s.replacing("-", with: "\\-")
        if s.hasPrefix(".") || s.hasPrefix("'") { s = "\\&" + s }
        return s
    }

    private static func argument(_ kind: OptionSpec.Kind) -> String {
        switch kind {
        case .flag: return ""
        case .value(let p): return " \\fI\(escape(p))\\fR"
        case .repeated(let p): return " \\fI\(escape(p))\\fR ..."
        }
    }
}
