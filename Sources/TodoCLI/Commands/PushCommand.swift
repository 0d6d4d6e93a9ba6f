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

    struct Options: Equatable {
        var table: String?
        /// `--jobs N`: nil for the engine's default.
        var jobs: Int?
        var json = false
    }

    static func parse(_ args: ParsedArguments) throws(CLIError) -> Options {
        _ = try positionals(args, min: 0, max: 0, names: "")
        var jobs: Int?
        if let text = args.value("--jobs") {
            guard let n = Int(text), (1...1024).contains(n) else {
                throw .usage("'--jobs \(text)' must be a number from 1 to 1024", command: name)
            }
            jobs = n
        }
        return Options(table: args.value("--table"), jobs: jobs, json: args.has("--json"))
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let store = try StoreAccess.open(ctx, writable: true, command: name)
        let table = try options.table.map { t throws(CLIError) in try StoreAccess.table(t, store, create: false) }
        return ExitCode.of(try SyncRunner.push(store, ctx, table: table, json: options.json, concurrency: options.jobs))
    }
}
