import TodoBasics
import TodoModel
import TodoTestSupport

/// One seeded run of the convergence simulation (issue 5 item 1): N replicas and one server,
/// random offline changes, random push / pull / sync, random resolutions, invariants after every
/// step, then everyone resolves and syncs until quiet, and all replicas must equal the server.
///
/// Everything random comes from one SplitMix64 seeded with `seed`, and the CLI harness's clock
/// and ids are deterministic, so a seed replays the same run (`TODO_SIM_SEED=<seed>`).
final class SimRun {
    let seed: UInt64
    let steps: Int
    var rng: SplitMix64
    let world: SimWorld
    var replicas: [SimReplica] = []
    /// The item ids of the run (lower case); a replica may spell one in upper case.
    var pool: [String] = []
    /// What the replicas were told, and the receipts they wrote: the invariants are stated
    /// against these and the files, never against a model of sync.
    var ledger = WriteLedger()
    var receipts = SimReceipts()
    var step = 0
    var failures: [String] = []
    /// The commands of the run, for the failure message (which shows the last 80).
    var trail: [String] = []
    /// Source of unique values: every text and priority written in a run differs.
    var counter = 0

    init(seed: UInt64, steps: Int) throws {
        self.seed = seed
        self.steps = steps
        rng = SplitMix64(seed: seed)
        world = try SimWorld()
    }

    // MARK: Running

    /// Runs the whole simulation; returns the failures (empty when every invariant held).
    func run() -> [String] {
        setUp()
        while step < steps && failures.isEmpty {
            step += 1
            let touched = randomStep()
            checkAfterStep(touched: touched)
        }
        if failures.isEmpty { finale() }
        return failures
    }

    /// 3 to 5 replicas, 5 to 10 item ids; about half of them exist on the server at the start.
    func setUp() {
        let count = Int.random(in: 3...5, using: &rng)
        let items = Int.random(in: 5...10, using: &rng)
        pool = (0..<items).map { "s\($0)" }
        for id in pool where Bool.random(using: &rng) {
            world.raw("POST", "/tables/todoitem", body: ["id": .string(id), "text": .string("seed \(id)"), "complete": false])
        }
        for i in 0..<count {
            let replica = SimReplica(name: String(UnicodeScalar(UInt8(65 + i))), cli: world.replica("r\(i)"))
            replicas.append(replica)
            run(i, ["pull"], expect: [0])
        }
        ledger.serverDeleted = []
    }

    /// Picks and runs one step; returns the replica it touched.
    func randomStep() -> Int {
        let r = Int.random(in: 0..<replicas.count, using: &rng)
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<45: localChange(r)
        case 45..<55: network(r, "push")
        case 55..<65: network(r, "pull")
        case 65..<80: network(r, "sync")
        default:
            if replicas[r].conflicts.isEmpty { network(r, "sync") } else { resolveOne(r, final: false) }
        }
        return r
    }

    /// Runs a command on replica `r`, records it in the trail, and fails unless its exit code is
    /// one of `expect`.
    @discardableResult
    func run(_ r: Int, _ args: [String], expect: Set<Int32>) -> CLIResult {
        let result = replicas[r].cli.run(args)
        if args != ["doctor"] || !expect.contains(result.code) { trail.append("step \(step) \(replicas[r].name): todo \(args.joined(separator: " ")) -> \(result.code)")
        }
        if !expect.contains(result.code) {
            fail("\(replicas[r].name): todo \(args.joined(separator: " ")) exited \(result.code), expected \(expect.sorted())\n\(result)")
        }
        return result
    }

    func fail(_ message: String) {
        failures.append("step \(step): \(message)")
    }

    func nextValue() -> Int {
        counter += 1
        return counter
    }

    /// The id as the command line gets it: sometimes in upper case, which names the same item.
    func spelled(_ id: String) -> String {
        Int.random(in: 0..<5, using: &rng) == 0 ? id.uppercased() : id
    }

    /// The failure message: the seed first, so that it can be replayed.
    func report() -> String {
        "convergence simulation failed: seed \(seed) (replay: TODO_SIM_SEED=\(seed) TODO_SIM_STEPS=\(steps) swift test --filter TodoSimulationTests)\n"
            + failures.prefix(5).joined(separator: "\n") + "\n--- last commands\n" + trail.suffix(80).joined(separator: "\n")
    }
}
