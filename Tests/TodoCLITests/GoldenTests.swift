#if canImport(Glibc)
import Glibc
#endif
import Testing
import TodoTestSupport

/// Whole sessions compared with golden transcripts in Fixtures/Output (stdout, stderr, exit code).
/// `TODO_RECORD_SNAPSHOTS=1 swift test` re-records; a fresh recording fails until run again.
@Suite struct GoldenTests {
    static var recording: [String: String] {
        getenv("TODO_RECORD_SNAPSHOTS").map { ["TODO_RECORD_SNAPSHOTS": String(cString: $0)] } ?? [:]
    }

    /// Runs commands one after another and returns the combined transcript, with the temp
    /// folder's path replaced by `<dir>`.
    static func session(_ commands: [[String]], fixture: String? = nil) -> String {
        let dir = TempDirectory()
        defer { dir.remove() }
        if let fixture { Fixtures.copy("Stores/\(fixture)", to: dir.path) }
        let cli = CLIHarness(directory: dir.path)
        var transcript = ""
        for args in commands {
            let result = cli.run(args)
            transcript += "$ todo \(args.joined(separator: " "))\n" + result.transcript + "\n"
        }
        return transcript.replacingOccurrences(of: dir.path, with: "<dir>")
    }

    @Test func localSession() {
        let t = Self.session([
            ["init"], ["add", "Buy milk"], ["add", "Pay rent", "--set", "priority=3"], ["list"],
            ["edit", "1d0b", "--text", "Pay the rent"], ["done", "1d0b"], ["list", "--all"], ["status"],
            ["status", "--short"], ["status", "--json"], ["log"], ["diff"], ["rm", "9758"], ["log", "--json"],
            ["show", "1d0b"], ["show", "1d0b", "--json"], ["doctor"],
        ])
        if let failure = Snapshot.check(t, named: "local-session", environment: Self.recording) { Issue.record("\(failure)") }
    }

    @Test func syncedStore() {
        let t = Self.session([
            ["list", "--all"], ["edit", "d265", "--text", "I love Azure!", "--unset", "complete"], ["diff"],
            ["edit", "d265", "--text", "Mobile Services is Cool!", "--complete"], ["edit", "d265", "--incomplete"],
            ["status"], ["log"], ["rm", "d2a1"], ["diff", "d2a1"], ["status", "--json"],
        ], fixture: "synced")
        if let failure = Snapshot.check(t, named: "synced-store", environment: Self.recording) { Issue.record("\(failure)") }
    }

    @Test func conflictStore() {
        let t = Self.session([
            ["status"], ["status", "--short"], ["diff", "d265"], ["diff", "--json", "D265929E-B17B-42D1-8FAB-D0ADF26486FA"],
            ["edit", "d265", "--text", "z"], ["rm", "d265"], ["show", "d265"], ["status", "--json"],
        ], fixture: "conflict")
        if let failure = Snapshot.check(t, named: "conflict-store", environment: Self.recording) { Issue.record("\(failure)") }
    }

    /// Every `--json` record shape (items, operations, receipts, the config, undo states) as the
    /// contract in the README shows them: built by TodoCLI's `JSONOutput`, never by the disk format.
    @Test func jsonOutput() {
        let local = Self.session([
            ["init", "--json"], ["add", "Buy milk", "--json"], ["add", "Pay rent", "--set", "priority=3", "--json"],
            ["edit", "1d0b", "--text", "Pay the rent", "--json"], ["done", "1d0b", "--json"], ["list", "--all", "--json"],
            ["export", "--json-lines"], ["show", "1d0b", "--json"], ["log", "--json"], ["undo", "--json"],
            ["rm", "9758", "--json"], ["diff", "--json"],
        ])
        if let failure = Snapshot.check(local, named: "json-output-local", environment: Self.recording) { Issue.record("\(failure)") }
        let synced = Self.session([
            ["show", "d265", "--json"], ["list", "--all", "--json"], ["edit", "d265", "--text", "x", "--json"],
            ["log", "--json"], ["undo", "--json"], ["export", "--json-lines"],
        ], fixture: "synced")
        if let failure = Snapshot.check(synced, named: "json-output-synced", environment: Self.recording) { Issue.record("\(failure)") }
    }

    @Test func help() {
        let t = Self.session([["--help"], ["add", "--help"], ["status", "--help"], ["edit", "--help"]])
        if let failure = Snapshot.check(t, named: "help", environment: Self.recording) { Issue.record("\(failure)") }
    }
}

extension String {
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = self[...]
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
