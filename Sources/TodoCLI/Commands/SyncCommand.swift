import TodoModel
import TodoStore
import TodoSync

struct SyncCommand: Command {
    static let name = "sync"
    static let summary = "push, then pull (the usual refresh)"
    static let usage = "sync [--table NAME] [--json]"
    static let discussion = """
        A push followed by a pull of every stored query, under one lock. If the push stops
        (network, authentication, configuration), the pull does not run. The pull runs even when
        the push recorded conflicts: it refreshes them and brings everything else.
        With --json, prints {"push": ..., "pull": ...}.
        """
    static let options: [OptionSpec] = [.table, .json]

    typealias Options = TableJSONOptions

    static func run(_ options: Options, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let store = try StoreAccess.open(ctx, writable: true, command: name)
        let table = try options.table.map { t throws(CLIError) in try StoreAccess.table(t, store, create: false) }
        let json = options.json
        // The same context with the console captured for --json; the transport too, or a test's
        // in-process server would be bypassed (and a real socket tried) by sync alone.
        let quiet = CommandContext(fs: ctx.fs, clock: ctx.clock, ids: ctx.ids, environment: ctx.environment,
                                   workingDirectory: ctx.workingDirectory, console: json ? .capturing() : ctx.console,
                                   transport: ctx.transport)
        let push = try SyncRunner.push(store, quiet, table: table, json: false, everyLine: json)
        if let stop = push.stop {
            if json { ctx.console.outRaw(JSONValue(["push": SyncRenderer.pushJSON(push), "pull": .null]).canonicalBytes()) }
            return ExitCode.of(stop)
        }
        let pull = try SyncRunner.pull(store, quiet, options: .init(table: table), json: false)
        if json {
            ctx.console.outRaw(JSONValue(["push": SyncRenderer.pushJSON(push), "pull": SyncRenderer.pullJSON(pull)]).canonicalBytes())
            for line in quiet.console.capturedErr.split(separator: "\n") { ctx.console.err(String(line)) }
        }
        return ExitCode.of(pull)
    }
}
