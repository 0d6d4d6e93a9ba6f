import Testing
import TodoTestSupport

/// Issue 19 item 2: every `(use "todo …")` hint names a command that works in that state, and
/// each one is checked by running it as printed.
@Suite struct HintTests {
    typealias S = ConflictStores

    /// The command inside `(use "…")` on the line that contains `marker`.
    static func hinted(_ output: String, _ marker: String) -> String? {
        guard let line = output.split(separator: "\n").first(where: { $0.contains(marker) }),
              let open = line.firstRange(of: "(use \"")
        else { return nil }
        let rest = line[open.upperBound...]
        return String(rest.prefix { $0 != "\"" })
    }

    /// `todo resolve A B --x|--y` as the alternatives it offers, each as arguments to run.
    static func alternatives(_ command: String) -> [[String]] {
        var words = command.split(separator: " ").map(String.init)
        #expect(words.first == "todo")
        words.removeFirst()
        let choices = words.removeLast().split(separator: "|").map(String.init)
        return choices.map { words + [$0] }
    }

    /// Both sides changed the text: --merge cannot work, so it is not offered; the real id is.
    @Test func aClashOffersOnlyTheChoicesThatWorkWithTheRealId() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        Fixtures.copy("Stores/synced", to: dir.path)
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("edit", "d265", "--text", "mine").code == 0)
        try S.recordConflict(dir.path, id: S.d265, server: S.server(S.d265, ["text": "theirs", "complete": false]), fields: ["text"])
        let status = cli.run("status").out
        let resolve = try #require(Self.hinted(status, "to settle it"), "\(status)")
        #expect(resolve == "todo resolve D265 --use-client|--use-server")
        #expect(Self.hinted(status, "to compare the copies") == "todo diff D265")
        #expect(cli.run("diff", "D265").out.contains("(use \"todo resolve D265 --use-client|--use-server\" to settle it)"))
        #expect(cli.run("resolve", "D265", "--merge").code == 1, "--merge was rightly left out")
        #expect(cli.run("diff", "D265").code == 0)
        let choice = Self.alternatives(resolve)[1]
        let r = cli.run(choice)
        #expect(r.code == 0, "\(choice): \(r)")
    }

    /// Changes to different fields: --merge works, and is offered.
    @Test func aMergeableConflictOffersMerge() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        Fixtures.copy("Stores/synced", to: dir.path)
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("edit", "d265", "--text", "mine").code == 0)
        try S.recordConflict(dir.path, id: S.d265, server: S.server(S.d265, ["text": "Mobile Services is Cool!", "complete": true]))
        let resolve = try #require(Self.hinted(cli.run("status").out, "to settle it"))
        #expect(resolve == "todo resolve D265 --use-client|--use-server|--merge")
        let r = cli.run(Self.alternatives(resolve)[2])
        #expect(r.code == 0 && r.out.contains("by merging both copies"), "\(r)")
    }

    /// Two conflicts: the hint names both ids (not a literal ID), and resolves both at once.
    @Test func severalConflictsAreAllNamed() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        Fixtures.copy("Stores/synced", to: dir.path)
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("edit", "d265", "--text", "mine").code == 0)
        #expect(cli.run("edit", "d2a1", "--text", "Pay the rent").code == 0)
        try S.recordConflict(dir.path, id: S.d265, server: S.server(S.d265, ["text": "theirs", "complete": false]), fields: ["text"])
        try S.recordConflict(dir.path, id: S.d2a1, server: S.server(S.d2a1, ["text": "Pay rent"], deleted: true))
        let status = cli.run("status").out
        let resolve = try #require(Self.hinted(status, "to settle them"), "\(status)")
        #expect(resolve == "todo resolve D265 d2a1 --use-client|--use-server")
        #expect(Self.hinted(status, "to compare the copies") == "todo diff")
        #expect(cli.run("diff").out.contains("conflict: changed here, deleted there"))
        let r = cli.run(Self.alternatives(resolve)[0])
        #expect(r.code == 0, "\(r)")
        #expect(cli.run("status", "--short").out.contains("C ") == false, "both were resolved")
    }

    /// Without a remote, `todo push` cannot send anything: the hint says to set one first.
    @Test func pendingChangesWithoutARemoteAskForOneFirst() {
        let dir = TempDirectory()
        defer { dir.remove() }
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("init").code == 0)
        #expect(cli.run("add", "x").code == 0)
        let status = cli.run("status").out
        #expect(status.contains("  (use \"todo remote set URL\", then \"todo push\", to send them, \"todo log\" to list them, \"todo diff\" to see the changes)\n"), "\(status)")
        let push = cli.run("push")
        #expect(push.code == 1 && push.out.isEmpty, "push alone would not work: \(push)")
        #expect(push.err == "error: this replica has no remote\nhint: set one with 'todo remote set URL'\n", "\(push)")
    }

    /// One file edited by hand: the hint names its id, and the command works.
    @Test func aHandEditHintNamesTheItem() throws {
        let (dir, cli) = try HandEditTests.synced()
        defer { dir.remove() }
        try HandEditTests.handEdit(dir.path, HandEditTests.d265File, "Mobile Services is Cool!", "Edited by hand")
        let status = cli.run("status").out
        let adopt = try #require(Self.hinted(status, "--adopt"), "\(status)")
        #expect(adopt == "todo edit D265 --adopt")
        let r = cli.run(adopt.split(separator: " ").dropFirst().map(String.init))
        #expect(r.code == 0 && r.out.hasPrefix("adopted the edit of D265"), "\(r)")
    }
}
