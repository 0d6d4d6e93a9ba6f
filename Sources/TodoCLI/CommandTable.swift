/// Every command, in the order `todo --help` lists them.
enum CommandTable {
    nonisolated(unsafe) static let all: [any Command.Type] = [
        InitCommand.self, AddCommand.self, ListCommand.self, ExportCommand.self, ShowCommand.self, EditCommand.self,
        DoneCommand.self, UndoneCommand.self, RemoveCommand.self, UndoCommand.self, StatusCommand.self, LogCommand.self,
        DiffCommand.self, RemoteCommand.self, CloneCommand.self, PushCommand.self, PullCommand.self,
        SyncCommand.self, ResolveCommand.self, PurgeCommand.self, TableCommand.self, QueryCommand.self, DoctorCommand.self, CompletionCommand.self, ManCommand.self,
    ]

    static func find(_ name: String) -> (any Command.Type)? {
        all.first { $0.name == name }
    }

    static var overview: String {
        let width = all.map { type -> Int in type.name.count }.max() ?? 0
        var lines = ["usage: todo <command> [options]", "",
                     "An offline-first store of todo items (and any JSON records) with git-style sync.", "",
                     "Commands:"]
        for command in all {
            let name: String = command.name
            lines.append("  " + name + String(repeating: " ", count: width - name.count + 2) + command.summary)
        }
        lines.append("")
        lines.append("See 'todo <command> --help' for a command's options.")
        return lines.joined(separator: "\n")
    }
}
