#if canImport(Glibc)
import Glibc
#endif
import TableProtocol
import Testing
import TodoBasics
import TodoModel
import TodoTestSupport

/// Issue 5, item 3: the fault campaign. Replicas reach a real server only through `FaultProxy`,
/// which drops connections before and after forwarding, cuts replies, holds requests and replies
/// past the client's timeout (0.5 s), answers 500/503 itself and forwards requests with their start
/// cut off (the server's 400 for malformed HTTP). The replicas retry until they
/// get through; then the campaign's invariants must hold (see `FaultCampaign.finish`): one row
/// per item on the server holding exactly what the replicas acknowledged, no deleted item back,
/// no conflict made by a fault, `todo doctor` clean, and every replica equal to the server.
/// Seeds and counts are printed, so a failure replays and the figures can be reported.
///
/// Long mode: `TODO_FAULT_SEEDS=N swift test --filter FaultCampaignTests` adds N more seeds to
/// the random mixes (about 6 s each, run in parallel; odd ones at a rate of 0.6).
@Suite struct FaultCampaignTests {
    @Test("each fault kind alone, seeded: the invariants hold after retrying", arguments: FaultKind.allCases)
    func oneKind(_ kind: FaultKind) throws {
        let seed = UInt64(5_300 + FaultKind.allCases.firstIndex(of: kind)!)
        let campaign = try FaultCampaign(replicas: 2, seed: seed)
        // First the writes only (where a lost reply matters most), then every request (replay
        // checks and pull pages too).
        let writes: @Sendable (HTTPRequest) -> Bool = { $0.method != "GET" }
        campaign.proxy.setPlan(.seeded(seed, kinds: [kind], rate: 0.5, budget: kind.isSlow ? 3 : 10, slowBudget: 3, eligible: writes))
        for _ in 0..<3 { campaign.round() }
        campaign.proxy.setPlan(.seeded(seed &+ 1, kinds: [kind], rate: 0.4, budget: kind.isSlow ? 2 : 8, slowBudget: 2))
        for _ in 0..<2 { campaign.round() }
        #expect(campaign.proxy.counts.faults[kind, default: 0] > 0, "the plan injected \(kind)")
        try campaign.finish("\(kind.rawValue) seed=\(seed)")
    }

    /// The seeds of `.ci/run`, plus `TODO_FAULT_SEEDS` more in the long mode.
    static let mixSeeds: [UInt64] = {
        let extra = getenv("TODO_FAULT_SEEDS").flatMap { Int(String(cString: $0)) } ?? 0
        return [1, 77, 2026] + (0..<UInt64(max(0, extra))).map { 10_000 + $0 }
    }()

    @Test("seeded random mixes of every fault kind, three replicas, many rounds", arguments: mixSeeds)
    func randomMix(_ seed: UInt64) throws {
        let campaign = try FaultCampaign(replicas: 3, seed: seed)
        // The long mode's odd seeds fault more than half the requests, so pushes stop often
        // and leave sealed ops behind for the changes made before the retry.
        let rate = seed >= 10_000 && seed % 2 == 1 ? 0.6 : 0.35
        campaign.proxy.setPlan(.seeded(seed, rate: rate, budget: 50, slowBudget: 4))
        var rounds = 0
        while campaign.proxy.isFaulting && rounds < 12 {
            campaign.round()
            rounds += 1
        }
        try campaign.finish("mix seed=\(seed) rate=\(rate)")
    }
}
