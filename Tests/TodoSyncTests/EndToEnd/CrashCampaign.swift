#if canImport(Glibc)
import Glibc
#endif
import TodoBasics
import TodoModel
import TodoTestSupport

/// Issue 5 item 2, the client half: three replicas of one real `todo-server`, driven by real `todo`
/// processes, each command of the workload kill -9'd at a seeded moment. After every kill the
/// replica's `todo doctor` must be clean, a local command must have left its item exactly as
/// before or as after, and the run goes on as a user would (repeating the command); at the end
/// everyone resolves and syncs until quiet, and the invariants of docs/testing.md hold.
///
/// Why the kill moment is relative to a measured duration: a fixed delay would kill everything on
/// a slow machine and nothing on a fast one. Timing only chooses moments; the exit status says
/// whether the command finished, and both outcomes are counted per kind.
final class CrashCampaign {
    enum Kind: String, CaseIterable {
        case add, editText = "edit --text", editFields = "edit --set", done = "done/undone", rm
        case push, pull, sync, resolve
    }

    struct Tally {
        var killed = 0
        var finished = 0
        var total: Int { killed + finished }
    }

    let seed: UInt64
    let target: Int
    var rng: SplitMix64
    let server: BinaryTutorialTests.ServerProcess
    let names = ["A", "B", "C"]
    /// What the replicas were told. A step runs several commands in order (making a conflict
    /// takes changes of two replicas), so a change may supersede a write of its own step.
    var ledger = WriteLedger(sameStepSupersedes: true)
    var tally: [Kind: Tally] = [:]
    /// How long a run of each kind takes here (measured once, then a moving average of the runs
    /// that finished): the scale of kill moments, so that it follows the machine's load.
    var estimate: [Kind: Double] = [:]
    /// Per kind, the strata of 0–1.2× the estimate not yet used in this cycle: the moments are
    /// random but spread, so that every part of a command's run gets its share of kills.
    var strata: [Kind: [Int]] = [:]
    static let strataCount = 6
    var failures: [String] = []
    var trail: [String] = []
    var step = 0
    var counter = 0
    var conflictsMade = 0
    /// Resolve kill points per strategy, and finished pulls that took more than one page.
    var strategies: [String: Int] = [:]
    var pagedPulls = 0
    var resolveSteps = 0

    var killPoints: Int { tally.values.reduce(0) { $0 + $1.total } }

    init(seed: UInt64, killPoints: Int) throws {
        self.seed = seed
        target = killPoints
        rng = SplitMix64(seed: seed)
        server = try BinaryTutorialTests.ServerProcess()
    }

    // MARK: Running

    /// The whole campaign; returns the failures (empty when every check held).
    func run() -> [String] {
        setUp()
        var deck: [Kind] = []
        while killPoints < target && failures.isEmpty {
            if deck.isEmpty { deck = Kind.allCases.shuffled(using: &rng) }
            step += 1
            perform(deck.removeLast())
        }
        if failures.isEmpty { finale() }
        if failures.isEmpty {
            for kind in Kind.allCases {
                let t = tally[kind, default: Tally()]
                if t.killed == 0 || t.finished == 0 { fail("\(kind.rawValue): \(t.killed) killed midway, \(t.finished) finished; both must occur") }
            }
        }
        return failures
    }

    /// Three replicas on pages of 3 rows (so a pull spans pages); A seeds 8 shared items.
    func setUp() {
        for name in names {
            shell("init --remote \(server.url)", name)
            shell("remote set --page-size 3", name)
        }
        for i in 0..<8 {
            let text = "A-t\(next())"
            run(0, ["add", text, "--id", "h\(i)"], expect: [0])
            ledger.adds.append((0, "h\(i)", step))
            ledger.write(0, "h\(i)", "text", .string(text), previous: nil, step: step, command: "add")
        }
        for r in names.indices { run(r, ["sync"], expect: [0]) }
    }

    func perform(_ kind: Kind) {
        switch kind {
        case .push, .pull, .sync:
            network(Int.random(in: 0..<names.count, using: &rng), kind)
        case .resolve:
            // Every third one merges an "added on both sides" made for it: conflicts that `--merge`
            // can settle are too rare otherwise.
            resolveSteps += 1
            let merge = resolveSteps % 3 == 0
            guard let r = merge ? makeConflict(variant: 3) : replicaWithConflict() ?? makeConflict() else { return }
            resolveOne(r, kind: .resolve, preferMerge: merge)
            // The push that publishes the resolution is killed too.
            network(r, .push)
        default:
            localChange(Int.random(in: 0..<names.count, using: &rng), kind)
        }
    }

    // MARK: Processes

    func store(_ r: Int) -> String { server.dir.sub(names[r]).appendingPath(".todo") }
    func output(_ r: Int) -> String { server.dir.sub(names[r]).appendingPath(".cmd.out") }

    /// What the last command of replica `r` printed, for failure messages.
    func printed(_ r: Int) -> String {
        (try? LocalFileSystem().readFile(output(r))).flatMap { $0 }.map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// Setup through the shell helper (init, remote set), which must succeed.
    func shell(_ args: String, _ name: String) {
        let result = server.todo(args, in: name)
        if result.code != 0 { fail("\(name): todo \(args) exited \(result.code): \(result.out)") }
    }

    /// Runs a command to its end; fails unless its exit code is in `expect`. A run that did the
    /// whole command (`measures`) updates the duration estimate of its kind.
    @discardableResult
    func run(_ r: Int, _ args: [String], expect: Set<Int32>, measures kind: Kind? = nil) -> Int32 {
        let (outcome, seconds) = TodoProcess.run(args, store: store(r), output: output(r))
        trail.append("step \(step) \(names[r]): todo \(args.joined(separator: " ")) -> \(outcome)")
        guard case .exited(let code) = outcome, expect.contains(code) else {
            fail("\(names[r]): todo \(args.joined(separator: " ")) ended with \(outcome), expected \(expect.sorted())\n\(printed(r))")
            return -1
        }
        if let kind { measured(kind, seconds) }
        return code
    }

    func measured(_ kind: Kind, _ seconds: Double) {
        estimate[kind] = estimate[kind].map { 0.7 * $0 + 0.3 * seconds } ?? seconds
    }

    /// One kill point: the command is started and kill -9'd at a seeded moment within 0–1.2× its
    /// kind's estimate, then `todo doctor` must be clean. Returns the exit code when the command
    /// finished first, nil when it was killed midway. The first command of a kind is measured
    /// instead (not a kill point).
    func killPoint(_ r: Int, _ kind: Kind, _ args: [String]) -> Int32? {
        guard let scale = estimate[kind] else {
            return run(r, args, expect: [0, 1, 3], measures: kind)
        }
        var t = tally[kind, default: Tally()]
        let quota = max(2, target / Kind.allCases.count)
        var delay: Double
        if t.killed == 0 && t.total >= quota / 2 {
            delay = 0
        } else if t.finished == 0 && t.total >= quota / 2 {
            delay = 3 * scale + 0.02
        } else {
            if strata[kind, default: []].isEmpty { strata[kind] = Array(0..<Self.strataCount).shuffled(using: &rng) }
            let stratum = strata[kind]!.removeLast()
            delay = (Double(stratum) + Double.random(in: 0..<1, using: &rng)) / Double(Self.strataCount) * 1.2 * scale
        }
        let (outcome, seconds) = TodoProcess.kill(after: delay, args, store: store(r), output: output(r))
        trail.append("step \(step) \(names[r]): todo \(args.joined(separator: " ")) kill -9 at \(Int(delay * 1000)) ms -> \(outcome)")
        let code: Int32?
        switch outcome {
        case .killed: t.killed += 1; code = nil
        case .exited(let c): t.finished += 1; code = c; measured(kind, seconds)
        case .signaled: fail("\(names[r]): todo \(args.joined(separator: " ")) died of \(outcome)"); code = -1
        }
        tally[kind] = t
        let said = printed(r)
        run(r, ["doctor"], expect: [0])
        // What the command printed, not the doctor, is what a failure message needs.
        try? LocalFileSystem().writeFile(output(r), Array(said.utf8), sync: false)
        return code
    }

    /// Records a failure; the first one also keeps a copy of the server's and the replicas'
    /// folders (the temp folder is removed at the end), for a post-mortem.
    func fail(_ message: String) {
        if failures.isEmpty {
            let copy = "/tmp/todo-crash-seed\(seed)"
            TempDirectory.shell("rm -rf '\(copy)' && cp -a '\(server.dir.path)' '\(copy)'")
            failures.append("the folders are kept in \(copy)")
        }
        failures.append("step \(step): \(message)")
    }

    func next() -> Int {
        counter += 1
        return counter
    }

    // MARK: The replica's files

    /// Parsed records under `.todo/<folder>`, in name order (queue order for operations).
    func records(_ r: Int, _ folder: String) -> [[String: JSONValue]] {
        let fs = LocalFileSystem()
        let dir = store(r).appendingPath(folder)
        return ((try? fs.listDirectory(dir)) ?? []).sorted().filter { !$0.hasPrefix(".") }.compactMap { name in
            (try? fs.readFile(dir.appendingPath(name))).flatMap { $0 }.flatMap { try? JSONValue.parse($0) }?.objectValue
        }
    }

    func items(_ r: Int) -> [String: [String: JSONValue]] {
        var out: [String: [String: JSONValue]] = [:]
        for item in records(r, "tables/todoitem/items") { out[WriteLedger.key(item["id"]?.stringValue ?? "")] = userFields(item) ?? [:] }
        return out
    }

    func operations(_ r: Int) -> [[String: JSONValue]] { records(r, "operations") }
    func conflicts(_ r: Int) -> [[String: JSONValue]] { records(r, "conflicts") }
    func receipts(_ r: Int) -> [[String: JSONValue]] { records(r, "receipts") }

    func replicaWithConflict() -> Int? {
        let withConflicts = names.indices.filter { !conflicts($0).isEmpty }
        return withConflicts.isEmpty ? nil : withConflicts[Int.random(in: 0..<withConflicts.count, using: &rng)]
    }

    /// The failure message: the seed first, so that the run can be replayed, then the figures.
    func report() -> String {
        "crash campaign failed: seed \(seed) (replay: TODO_CRASH_SEED=\(seed) TODO_CRASH_KILLS=\(target) swift test --filter CrashCampaignTests)\n"
            + failures.prefix(6).joined(separator: "\n") + "\n" + figures() + "\n--- last commands\n" + trail.suffix(60).joined(separator: "\n")
    }

    func figures() -> String {
        let kinds = Kind.allCases.map { k in
            let t = tally[k, default: Tally()]
            return "\(k.rawValue) \(t.total) (\(t.killed) killed, \(t.finished) finished)"
        }
        let killed = tally.values.reduce(0) { $0 + $1.killed }
        return "crash campaign seed \(seed): \(killPoints) kill points, \(killed) killed midway, \(killPoints - killed) finished first; "
            + kinds.joined(separator: ", ") + "; resolve " + strategies.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            + "; \(conflictsMade) conflicts made on purpose; \(pagedPulls) finished pulls of several pages"
    }
}
