import TodoModel
import TodoStore
import TodoSync

struct CloneCommand: Command {
    static let name = "clone"
    static let summary = "create a replica of a remote and pull it"
    static let usage = "clone URL [DIR] [--app-key-file FILE | --app-key KEY] [--token-file FILE] [--ca-file PATH] [--protocol mobile-apps|mobile-services] [--table NAME] [--page-size N] [--json]"
    static let discussion = """
        'todo init --remote URL' in DIR (default: the current directory), then a full pull of the
        default table. If the pull stops, the replica stays with every page it committed; run
        'todo pull' in it to finish. Clone asks for pages of 1000 rows (the protocol's maximum;
        a server that caps pages lower still works), so a large table takes few commits.
        """
    static let options: [OptionSpec] = AppKeyOption.options + TokenOption.options + CAFileOption.options + [
        OptionSpec("--protocol", .value("GEN"), "mobile-apps (default) or mobile-services"),
        OptionSpec("--table", .value("NAME"), "the default table (default: todoitem)"),
        OptionSpec("--page-size", .value("N"), "rows per pull page, 1 to 1000 (default 1000 for a clone)"),
        .json,
    ]

    struct Options {
        /// DIR, as given.
        var directory = "."
        var pageSize = 1000
        /// With the URL as its remote.
        var replica = ReplicaOptions()
        var json = false
    }

    static func parse(_ args: ParsedArguments) throws(CLIError) -> Options {
        let p = try positionals(args, min: 1, max: 2, names: "URL")
        var pageSize = 1000
        if let text = args.value("--page-size") {
            guard let n = Int(text), (1...1000).contains(n) else { throw .usage("'--page-size \(text)' must be 1 to 1000", command: name) }
            pageSize = n
        }
        let replica = try ReplicaOptions.parse(args, remote: p[0], command: name)
        return Options(directory: p.count > 1 ? p[1] : ".", pageSize: pageSize, replica: replica, json: args.has("--json"))
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let dirArg = options.directory
        let folder = InitCommand.normalize(dirArg.hasPrefix("/") ? dirArg : ctx.workingDirectory.appendingPath(dirArg))
        let folderExisted = ctx.fs.fileExists(folder)
        let (root, _) = try InitCommand.create(in: dirArg, options.replica, ctx, pageSize: options.pageSize)
        if !options.json { ctx.console.out("Cloning into \(root)") }
        let store: Store
        do { store = try Store.open(at: root, fs: ctx.fs, writable: true, command: "todo clone") } catch { throw .store(error) }
        // A clone that brought nothing is taken back, so a wrong URL or a server that is down
        // leaves no half-made replica (and no folder it made). One that committed pages stays:
        // 'todo pull' finishes it, without fetching those pages again.
        let report: PullReport
        do {
            report = try SyncRunner.pull(store, ctx, options: PullEngine.Options(), json: options.json, printStop: false)
        } catch {
            takeBack(store, root: root, folder: folderExisted ? nil : folder, ctx)
            throw error
        }
        if let stop = report.stop {
            if report.queries.allSatisfy({ $0.pages == 0 }) {
                // Not the pull's "run 'todo pull' again": there is no replica left to pull into.
                ctx.console.err("error: \(SyncStopText.sentence(stop))")
                takeBack(store, root: root, folder: folderExisted ? nil : folder, ctx)
                ctx.console.err("hint: nothing was pulled, so the clone was taken back (\(folderExisted ? root : folder) removed); check the URL, then run the clone again")
            } else {
                for line in SyncRenderer.stopLines(stop, command: "pull") { ctx.console.err(line) }
                ctx.console.err("hint: the replica is in \(root); run 'todo pull' there to finish")
            }
        }
        return ExitCode.of(report)
    }

    /// Removes what the clone made: the replica, and the folder when the clone created it.
    static func takeBack(_ store: Store, root: String, folder: String?, _ ctx: CommandContext) {
        store.close()
        FolderRemoval.removeTree(root, ctx.fs)
        if let folder { try? ctx.fs.removeDirectory(folder) }  // only if empty: never someone else's files
    }
}
