#if canImport(Glibc)
import Glibc
#endif
import Testing
import TodoBasics
import TodoCLI
import TodoTestSupport

/// One local command run again and again on copies of a store, with its file-system calls failing
/// one step further each time (reads included), until it runs without reaching the failing step.
///
/// What every step must show (issue 15, item 5): a command that reports failure left the store as
/// it was, and one that reports success made its change. Checked as the user meets it: first by
/// the next reading commands (`list`, `status`, `log`, `diff`), then by `todo doctor` (clean, or
/// saying what it says of the store before the command, for a store with a hand edit to settle)
/// and the bytes of every file after it, which must be those of the store before or after.
enum FailureCampaign {
    enum Mode: String, CaseIterable, Sendable {
        /// Only the step fails (the disk was full for a moment): the command goes on.
        case once
        /// The step and every later call fail (the disk went bad, or the process died there).
        case fromThenOn
    }

    /// The errno of step n: a full disk, exhausted inodes (also ENOSPC), a failing disk, an
    /// immutable file, a quota.
    static let codes: [Int32] = [EIO, ENOSPC, EPERM, EDQUOT, EROFS]

    static func run(_ args: [String], in dir: String, fs: any FileSystem, environment: [String: String] = [:]) -> CLIResult {
        let console = Console.capturing()
        let ctx = CommandContext(fs: fs, clock: .fixed(CLIHarness.epoch), ids: .seeded(42), environment: environment,
                                 workingDirectory: dir, console: console)
        let code = TodoMain.run(args, context: ctx)
        return CLIResult(out: console.capturedOut, err: console.capturedErr, code: code)
    }

    /// What the reading commands show, as one text.
    static func view(_ dir: String) -> String {
        [["list", "--all", "--json"], ["status", "--json"], ["log", "--json"], ["diff", "--json"]].map { args in
            let r = run(args, in: dir, fs: LocalFileSystem())
            return "$ todo \(args.joined(separator: " ")) -> \(r.code)\n\(r.out)\(r.err)"
        }.joined(separator: "\n")
    }

    /// The store as the next writer leaves it: `todo doctor`'s complaint (nil when clean), then
    /// every file's bytes.
    /// An index of pending operations that doctor finds wrong is a complaint too: a cut-off
    /// command must never leave one that vouches for the folder and misses a file (`PendingIndex`);
    /// so is an index of ids that doctor finds wrong (`IDIndex`).
    static func recovered(_ dir: String) -> (doctor: String?, files: [String: String]) {
        let r = run(["doctor"], in: dir, fs: LocalFileSystem())
        return (r.code == 0 && !r.out.contains("/cache/pending/") && !r.out.contains("/cache/ids/") ? nil : r.out + r.err, snapshot(dir))
    }

    /// Runs the campaign for `args` on copies of `template` (a folder holding `.todo`).
    /// `prepare`: a command run on each copy first (`doctor`, to build the index of pending
    /// operations for the copy's own folder, so the command keeps it rather than rebuilding it).
    /// `environment`: the command's (test sizes such as `TODO_TEST_ITEM_BATCH`).
    static func check(_ args: [String], template: String, mode: Mode, limit: Int = 400, prepare: [String]? = nil,
                      environment: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation) {
        let base = TempDirectory("todo-fail")
        defer { base.remove() }
        func copy(to dir: String) {
            ConflictStores.copyTree(template, dir)
            if let prepare { _ = run(prepare, in: dir, fs: LocalFileSystem()) }
        }
        copy(to: base.sub("before"))
        let beforeView = view(base.sub("before"))
        let (beforeDoctor, before) = recovered(base.sub("before"))
        copy(to: base.sub("after"))
        let clean = run(args, in: base.sub("after"), fs: LocalFileSystem(), environment: environment)
        #expect(clean.code == 0, "the command succeeds without faults: \(clean)", sourceLocation: sourceLocation)
        let afterView = view(base.sub("after"))
        let (afterDoctor, after) = recovered(base.sub("after"))
        #expect(afterDoctor == nil, "doctor is clean after the command: \(afterDoctor ?? "")", sourceLocation: sourceLocation)
        #expect(!changedPaths(before, after).isEmpty, "the command changes the store", sourceLocation: sourceLocation)

        var failed = 0, warned = 0
        var n = 1
        while n < limit {
            let dir = base.sub("step-\(n)")
            copy(to: dir)
            let code = codes[n % codes.count]
            let plan: FaultyFileSystem.Plan = mode == .once ? .once(n) : .from(n)
            let faulty = FaultyFileSystem(base: LocalFileSystem(), plan: plan, code: code, countsReads: true)
            let r = run(args, in: dir, fs: faulty, environment: environment)
            let reached = faulty.callCount >= n
            let shown = view(dir)
            let (doctor, files) = recovered(dir)
            let step = "step \(n) (\(mode.rawValue), errno \(code))"
            // `add` says the new item's number on stderr (`ItemNumbers`), and `purge` under a test
            // batch size what it held: neither is a warning.
            let err = r.err.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.hasPrefix("added as number ") && !$0.hasPrefix("purge held at most ") }.joined(separator: "\n")
            #expect(doctor == nil || (r.code != 0 && doctor == beforeDoctor), "\(step): todo doctor: \(doctor ?? "")", sourceLocation: sourceLocation)
            if r.code == 0 {
                #expect(changedPaths(files, after) == [], "\(step): reported success, but the store differs from after the command",
                        sourceLocation: sourceLocation)
                #expect(Bool(shown == afterView), "\(step): reported success, but the next commands do not show the change", sourceLocation: sourceLocation)
                if reached && !err.isEmpty {
                    #expect(err.hasPrefix("warning: the change is saved, but writing its files did not finish: "),
                            "\(step): \(r.err)", sourceLocation: sourceLocation)
                    warned += 1
                }
            } else {
                failed += 1
                #expect(r.code == 1, "\(step): exit \(r.code)", sourceLocation: sourceLocation)
                #expect(changedPaths(files, before) == [], "\(step): reported failure (\(r.err)), but the store differs from before the command",
                        sourceLocation: sourceLocation)
                #expect(Bool(shown == beforeView), "\(step): reported failure, but the next commands show a change", sourceLocation: sourceLocation)
                #expect(err.hasPrefix("error: ") && err.contains("injected fault"), "\(step): \(r.err)", sourceLocation: sourceLocation)
            }
            if !reached { break }  // the command finished before step n
            n += 1
        }
        #expect(n > 5 && n < limit, "the command made a few file-system calls (\(n))", sourceLocation: sourceLocation)
        #expect(failed > 0, "some steps made the command fail", sourceLocation: sourceLocation)
        if mode == .once {
            #expect(warned > 0, "some faults came after the commit point and were reported as warnings", sourceLocation: sourceLocation)
        }
    }
}
