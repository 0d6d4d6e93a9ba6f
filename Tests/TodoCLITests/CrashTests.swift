import Testing
import TodoBasics
import TodoCLI
import TodoTestSupport

/// Local changes (scenario 89, issue 15 item 5) with their file-system calls failing at every step,
/// once or from that step on: a command that reports failure leaves the store as it was, one that
/// reports success made its change, and `todo doctor` finds it clean (`FailureCampaign`).
@Suite struct CrashTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var fixture: String
        var args: [String]
        var mode: FailureCampaign.Mode
        var testDescription: String { "\(fixture): todo \(args.joined(separator: " ")) [\(mode.rawValue)]" }
    }

    static let commands: [(String, [String])] = [
        ("synced", ["add", "Buy milk", "--set", "priority=2"]),
        ("synced", ["add", "New table", "--table", "shopping"]),
        ("synced", ["edit", "d265", "--text", "b"]),
        ("synced", ["done", "d265"]),
        ("synced", ["rm", "d2a1"]),
        ("conflict", ["undone", "d2a1"]),
        ("conflict", ["edit", "d2a1", "--set", "priority=1", "--unset", "note"]),
        ("torn-journal", ["add", "after a crash"]),
        ("synced", ["remote", "set", "http://127.0.0.1:9090"]),
        ("hand-edited", ["edit", "d265", "--adopt"]),
        ("hand-edited", ["edit", "d265", "--discard"]),
        // Issue 21 item 3: with an index of pending operations that matches the folder, which
        // each command keeps in its own commit.
        ("indexed", ["add", "third", "--id", "c"]),
        ("indexed", ["edit", "a", "--text", "changed"]),
        ("indexed", ["rm", "b"]),
        ("indexed", ["done", "d265"]),
        // Issue 19 item 1 and issue 21 item 3: by number, with the index of ids kept in the commit.
        ("indexed", ["edit", "3", "--text", "by number"]),
    ]

    static let cases: [Case] = FailureCampaign.Mode.allCases.flatMap { mode in
        commands.map { Case(fixture: $0.0, args: $0.1, mode: mode) }
    }

    @Test(arguments: cases)
    func reportedOutcomeMatchesTheStore(_ c: Case) throws {
        let template = TempDirectory("todo-template")
        defer { template.remove() }
        if c.fixture == "hand-edited" {
            // The synced store rewritten by todo (with ms_written), then d265's text edited by hand.
            let (dir, _) = try HandEditTests.synced()
            defer { dir.remove() }
            ConflictStores.copyTree(dir.path, template.path)
            try HandEditTests.handEdit(template.path, HandEditTests.d265File, "Mobile Services is Cool!", "Edited by hand")
        } else if c.fixture == "indexed" {
            // The synced store with two items queued for insertion; each copy gets its index from doctor.
            Fixtures.copy("Stores/synced", to: template.path)
            for (text, id) in [("first", "a"), ("second", "b")] {
                #expect(FailureCampaign.run(["add", text, "--id", id], in: template.path, fs: LocalFileSystem()).code == 0)
            }
        } else {
            Fixtures.copy("Stores/\(c.fixture)", to: template.path)
        }
        FailureCampaign.check(c.args, template: template.path, mode: c.mode, prepare: c.fixture == "indexed" ? ["doctor"] : nil)
    }
}
