import TodoModel
import TodoStore
import TodoSync

struct PushCommand: Command {
    static let name = "push"
    static let summary = "send the pending operations to the remote"
    static let usage = "push [--table NAME] [--jobs N] [--json]"
    static let discussion = """
        Sends the queue in order: insert as POST, update as PATCH and delete as DELETE, each
        update and delete with If-Match of the version it started from. A change the server
        already has is recognised (replay), changes to different fields merge on their own (with
        a receipt), and a real clash becomes a conflict file; the push goes on with other items.
        Exit status: 0 all sent, 3 conflicts open, 4 network or authentication, 1 configuration.
        """
    static let options: [OptionSpec] = [
        .table,
        OptionSpec("--jobs", .value("N"), "requests in flight at once, pipelined over up to 4 connections (default 256; 1 is strictly sequential)"),
        .json,
    ]

    static func run(_ args: ParsedArguments, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        _ = try positionals(args, min: 0, max: 0, names: "")
        let jobs = try jobsOption(args, command: name)
        let store = try StoreAccess.open(ctx, writable: true, command: name)
        let table = try args.value("--table").map { _ throws(CLIError) in try StoreAccess.table(args, store, create: false) }
        return ExitCode.of(try SyncRunner.push(store, ctx, table: table, json: args.has("--json"), concurrency: jobs))
    }

    static func jobsOption(_ args: ParsedArguments, command: String) throws(CLIError) -> Int? {
        guard let text = args.value("--jobs") else { return nil }
        guard let n = Int(text), (1...1024).contains(n) else {
            throw .usage("'--jobs \(text)' must be a number from 1 to 1024", command: command)
        }
        return n
    }
}
