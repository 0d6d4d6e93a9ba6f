#if canImport(Glibc)
import Glibc
#endif
import Testing
import TodoBasics
import TodoTestSupport

/// Issue 5 item 2: the crash campaign with the built binaries (see docs/testing.md, "Crashes").
///
///     swift test --filter CrashCampaignTests                          # CI: seed 1, 216 kill points
///     TODO_CRASH_SEED=7 TODO_CRASH_KILLS=1000 swift test --filter CrashCampaignTests
///
/// The seed and the figures (kill points per command kind, killed midway or finished first) are
/// printed, so a failure replays and a long run can be reported.
@Suite(.serialized) struct CrashCampaignTests {
    static func environment(_ name: String) -> Int? {
        getenv(name).flatMap { Int(String(cString: $0)) }
    }

    @Test func killNineOfTodoAtRandomMomentsKeepsTheStoreAndTheInvariants() throws {
        #expect(LocalFileSystem().fileExists(TodoProcess.binary), "build the binaries first (swift build)")
        let seed = UInt64(Self.environment("TODO_CRASH_SEED") ?? 1)
        let campaign = try CrashCampaign(seed: seed, killPoints: Self.environment("TODO_CRASH_KILLS") ?? 216)
        let failures = campaign.run()
        print(campaign.figures())
        if !failures.isEmpty { Issue.record(Comment(rawValue: campaign.report())) }
        #expect(campaign.killPoints >= campaign.target)
    }
}
