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
        /// `TODO_TEST_ITEM_BATCH`: item files removed a commit (`ItemRemoval`).
        var batch: Int? = nil
        var testDescription: String {
            "\(store): todo \(args.joined(separator: " ")) [\(mode.rawValue)\(batch.map { ", batch \($0)" } ?? "")]"
        }
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

    /// Issue 21: purge and table rm remove the item files a batch a commit after their own, under
    /// a marker the next command finishes (`ItemRemoval`); a batch of 1 makes every step a crash
    /// point: writing the lists, the first commit, each batch, the numbers, the folders, the marker.
    static let batched: [(String, [String])] = [
        ("synced", ["purge"]),
        ("conflict-and-insert", ["purge", "--force"]),
        ("conflict-and-insert", ["purge", "--force", "--query-id", "default"]),
        ("synced", ["table", "rm", "todoitem"]),
        ("conflict-and-insert", ["table", "rm", "todoitem", "--force"]),
    ]

    static let cases: [Case] = FailureCampaign.Mode.allCases.flatMap { mode in
        commands.map { Case(store: $0.0, args: $0.1, mode: mode) } + batched.map { Case(store: $0.0, args: $0.1, mode: mode, batch: 1) }
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
        FailureCampaign.check(c.args, template: template.path, mode: c.mode,
                              environment: c.batch.map { ["TODO_TEST_ITEM_BATCH": String($0)] } ?? [:])
    }
}
