import Testing
import TodoBasics
import TodoCLI
import TodoModel
import TodoTestSupport

/// Scenario 89 and issue 15 item 5 for `resolve` and `purge`: their file-system calls failing at
/// every step, once or from that step on, a reported failure leaves the store as it was and a
/// reported success made the change (`FailureCampaign`).
@Suite struct ResolvePurgeCrashTests {
    typealias S = ConflictStores

    struct Case: CustomTestStringConvertible, Sendable {
        var store: String
        var args: [String]
        var mode: FailureCampaign.Mode
        var testDescription: String { "\(store): todo \(args.joined(separator: " ")) [\(mode.rawValue)]" }
    }

    static let commands: [(String, [String])] = [
        ("conflict", ["resolve", "d265", "--use-client"]),
        ("conflict", ["resolve", "d265", "--use-server"]),
        ("conflict-resolved", ["resolve", "d265"]),
        ("three", ["resolve", "--all", "--use-server"]),
        ("three", ["resolve", "d2a1", "t3", "--merge"]),
        ("synced", ["purge"]),
        ("conflict-and-insert", ["purge", "--force"]),
        ("conflict-and-insert", ["purge", "--force", "--query-id", "default"]),
    ]

    static let cases: [Case] = FailureCampaign.Mode.allCases.flatMap { mode in
        commands.map { Case(store: $0.0, args: $0.1, mode: mode) }
    }

    /// Builds the named store in `dir`.
    static func build(_ name: String, in dir: String) throws {
        switch name {
        case "three":
            try S.three(dir)
        case "conflict-resolved":
            Fixtures.copy("Stores/conflict", to: dir)
            try S.setResolved(dir, id: S.d265, ["text": "I love both", "complete": true])
        case "conflict-and-insert":
            Fixtures.copy("Stores/conflict", to: dir)
            #expect(CLIHarness(directory: dir).run("add", "new one", "--id", "n1").code == 0)
        default:
            Fixtures.copy("Stores/\(name)", to: dir)
        }
    }

    @Test(arguments: cases)
    func reportedOutcomeMatchesTheStore(_ c: Case) throws {
        let template = TempDirectory("todo-template")
        defer { template.remove() }
        try Self.build(c.store, in: template.path)
        FailureCampaign.check(c.args, template: template.path, mode: c.mode)
    }
}
