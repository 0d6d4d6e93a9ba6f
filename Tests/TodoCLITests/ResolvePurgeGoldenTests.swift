import Testing
import TodoTestSupport

/// A whole resolve-and-purge session on the conflict fixture, compared with its golden transcript
/// (Fixtures/Output/resolve-purge-session.txt; re-record with TODO_RECORD_SNAPSHOTS=1).
@Suite struct ResolvePurgeGoldenTests {
    @Test func resolveAndPurgeSession() {
        let t = GoldenTests.session([
            ["resolve", "--help"], ["purge", "--help"], ["resolve", "d265", "--merge"], ["resolve", "d265"], ["purge"],
            ["resolve", "d265", "--use-client"], ["status"], ["log"], ["diff", "d265"], ["add", "Buy milk", "--id", "milk"],
            ["purge", "--force"], ["log"], ["list", "--all"], ["status", "--json"], ["doctor"],
        ], fixture: "conflict")
        if let failure = Snapshot.check(t, named: "resolve-purge-session", environment: GoldenTests.recording) {
            Issue.record("\(failure)")
        }
    }
}
