#if canImport(Glibc)
import Glibc
#endif
import Testing

/// Issue 5 item 1: the seeded multi-replica convergence simulation (sync.md §12 scenario 98,
/// generalised). `swift test` runs 200 seeds of 24 steps; a longer mode is chosen by environment:
///
///     TODO_SIM_SEEDS=2000 TODO_SIM_STEPS=60 swift test --filter TodoSimulationTests
///     TODO_SIM_SEED=1234 swift test --filter TodoSimulationTests      # replay one seed
///
/// Why many small runs rather than a few long ones: most bugs of sync need only two or three
/// replicas touching one item in an unlucky order, and a short run that fails is easy to read.
@Suite struct ConvergenceSimulationTests {
    static func environment(_ name: String) -> Int? {
        getenv(name).flatMap { Int(String(cString: $0)) }
    }

    static var seeds: [UInt64] {
        if let one = environment("TODO_SIM_SEED") { return [UInt64(one)] }
        let count = max(1, environment("TODO_SIM_SEEDS") ?? 200)
        let first = environment("TODO_SIM_FIRST_SEED") ?? 1
        return (0..<count).map { UInt64(first + $0) }
    }

    static var steps: Int { max(1, environment("TODO_SIM_STEPS") ?? 24) }

    @Test("convergence simulation: N replicas, random edits, syncs and resolutions", arguments: seeds)
    func simulate(_ seed: UInt64) throws {
        let run = try SimRun(seed: seed, steps: Self.steps)
        let failures = run.run()
        if !failures.isEmpty { Issue.record(Comment(rawValue: run.report())) }
    }
}
