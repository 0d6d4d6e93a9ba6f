import TodoModel
import TodoStore
import TodoSync

struct DoctorCommand: Command {
    static let name = "doctor"
    static let summary = "check the whole store and report every problem"
    static let usage = "doctor [--remote] [--json]"
    static let discussion = """
        Completes an interrupted command if one was cut off (that is not a repair: its commit had
        happened), then checks every file of the .todo directory and the rules that tie operations,
        items and conflicts together. Changes nothing else. On a store it cannot write (a read-only
        folder) it checks what it can read, an unfinished commit included. Exits 1 when it finds a
        problem. --remote also reads every row of the server and reports each copy the replica
        keeps at the same version that differs from it ('todo pull --verify' repairs them).
        """
    static let options: [OptionSpec] = [
        OptionSpec("--remote", .flag, "also compare the replica's copies with the server's rows of the same version"),
        .json,
    ]

    struct Options: Equatable {
        var remote = false
        var json = false
    }

    static func parse(_ args: ParsedArguments) throws(CLIError) -> Options {
        _ = try positionals(args, min: 0, max: 0, names: "")
        return Options(remote: args.has("--remote"), json: args.has("--json"))
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let (store, notWritable): (Store, StoreError?)
        do {
            let root = try Store.discover(from: ctx.workingDirectory, override: ctx.environment["TODO_DIR"], fs: ctx.fs)
            (store, notWritable) = try Store.openForCheck(at: root, fs: ctx.fs)
        } catch {
            throw .store(error)
        }
        let test = TestSizes(ctx.environment)
        test.apply(to: store)
        let report = Doctor.check(store, notWritable: notWritable) { url in
            do throws(RemoteEndpoint.ParseError) { _ = try RemoteEndpoint(parsing: url); return nil } catch { return RemoteURLText.sentence(error) }
        }
        if test.isSet {
            let f = report.figures
            ctx.console.err("doctor held at most \(f.itemFiles) item files and \(f.ids) ids; the ids were sorted in \(f.idRuns) runs")
            ctx.console.err("the queue: doctor held at most \(f.operations) operations and \(max(f.queueNames, f.pendingIndex.names)) names; "
                            + "the names were sorted in \(f.queueRuns + f.pendingIndex.runs) runs")
        }
        let remote = options.remote ? try SyncRunner.runVerifier(store, ctx, table: nil, repair: false) : nil
        let problems = DoctorFindingText.lines(report.problems), notes = DoctorFindingText.lines(report.notes)
        if options.json {
            var value: JSONValue = [
                "ok": .bool(report.problems.isEmpty),
                "problems": .array(problems.map { ["path": .string($0.path), "message": .string($0.message)] }),
                "notes": .array(notes.map { ["path": .string($0.path), "message": .string($0.message)] }),
                "counts": ["tables": .number(Double(report.tables)), "items": .number(Double(report.items)),
                           "operations": .number(Double(report.operations)), "conflicts": .number(Double(report.conflicts)),
                           "receipts": .number(Double(report.receipts))],
            ]
            if let remote { value = .object((value.objectValue ?? [:]).merging(["remote": VerifyRenderer.json(remote)]) { $1 }) }
            ctx.console.outRaw(value.canonicalBytes())
        } else {
            for p in problems { ctx.console.out("\(p.path): \(p.message)") }
            for n in notes { ctx.console.out("note: \(n.path): \(n.message)") }
            let counts = [Plural.count(report.tables, "table"), Plural.count(report.items, "item"),
                          Plural.count(report.operations, "pending operation"), Plural.count(report.conflicts, "conflict"),
                          Plural.count(report.receipts, "receipt")].joined(separator: ", ")
            ctx.console.out(report.problems.isEmpty ? "ok: \(counts)" : "\(Plural.count(report.problems.count, "problem")) found (\(counts))")
            if let remote { for line in VerifyRenderer.text(remote) { ctx.console.out(line) } }
        }
        if let remote {
            for warning in remote.warnings { ctx.console.err("warning: \(PullNoticeText.warning(warning))") }
            if let stop = remote.stop { for line in SyncRenderer.stopLines(stop, command: "doctor --remote") { ctx.console.err(line) } }
        }
        if let hint = DoctorFindingText.hint(report.problems) {
            ctx.console.err("hint: " + hint)
            return ExitCode.failure
        }
        if let remote, ExitCode.of(remote) != ExitCode.ok { return remote.stop.map(ExitCode.of) ?? ExitCode.failure }
        return ExitCode.ok
    }
}

/// Small sizes for tests, so that a store of a hundred items is walked in several batches and
/// its ids sorted through runs on disk; `doctor` then says on stderr what it held at most (how
/// the tests see that it did not hold every item or id: issue 21).
private struct TestSizes {
    var itemBatch: Int?
    var sortBudget: Int?
    var bucketLimit: Int?

    init(_ environment: [String: String]) {
        itemBatch = environment["TODO_TEST_ITEM_BATCH"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil }
        sortBudget = environment["TODO_TEST_SORT_BUDGET"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil }
        bucketLimit = environment["TODO_TEST_ID_BUCKET_LIMIT"].flatMap(Int.init).flatMap { $0 > 1 ? $0 : nil }
    }

    var isSet: Bool { itemBatch != nil || sortBudget != nil }

    func apply(to store: Store) {
        if let itemBatch { store.itemBatchSize = itemBatch }
        if let sortBudget {
            store.idIndexSortBudget = sortBudget
            store.pendingIndexSortBudget = sortBudget
        }
        if let bucketLimit { store.idIndexBucketLimit = bucketLimit }
    }
}
