import Testing
import TodoBasics
import TodoCLI
import TodoModel
import TodoTestSupport

/// Scenario 89 for `resolve` and `purge`: stopped at every file-system step, each leaves a store
/// that `todo doctor` finds clean and that is byte-for-byte the state before or after the command.
@Suite struct ResolvePurgeCrashTests {
    typealias S = ConflictStores

    struct Case: CustomTestStringConvertible, Sendable {
        var store: String
        var args: [String]
        var testDescription: String { "\(store): todo \(args.joined(separator: " "))" }
    }

    static let cases: [Case] = [
        Case(store: "conflict", args: ["resolve", "d265", "--use-client"]),
        Case(store: "conflict", args: ["resolve", "d265", "--use-server"]),
        Case(store: "conflict-resolved", args: ["resolve", "d265"]),
        Case(store: "three", args: ["resolve", "--all", "--use-server"]),
        Case(store: "three", args: ["resolve", "d2a1", "t3", "--merge"]),
        Case(store: "synced", args: ["purge"]),
        Case(store: "conflict-and-insert", args: ["purge", "--force"]),
        Case(store: "conflict-and-insert", args: ["purge", "--force", "--query-id", "default"]),
    ]

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
    func everyStepLeavesBeforeOrAfter(_ c: Case) throws {
        let base = TempDirectory("todo-crash")
        defer { base.remove() }
        let template = base.sub("template")
        try Self.build(c.store, in: template)
        S.copyTree(template, base.sub("before"))
        let before = CrashTests.recoveredState(base.sub("before")).files
        S.copyTree(template, base.sub("after"))
        #expect(CrashTests.run(c.args, in: base.sub("after"), fs: LocalFileSystem()) == 0)
        let after = CrashTests.recoveredState(base.sub("after")).files
        #expect(before != after)

        var n = 1
        var sawBefore = false, sawAfter = false
        while n < 300 {
            let dir = base.sub("crash-\(n)")
            S.copyTree(template, dir)
            let faulty = FaultyFileSystem(base: LocalFileSystem(), failOnCall: n)
            let code = CrashTests.run(c.args, in: dir, fs: faulty)
            let (doctor, files) = CrashTests.recoveredState(dir)
            #expect(doctor == nil, "step \(n): todo doctor is clean")
            #expect(files == before || files == after,
                    "step \(n): differs from before in \(changedPaths(files, before)), from after in \(changedPaths(files, after))")
            if files == before { sawBefore = true }
            if files == after { sawAfter = true }
            if code == 0 && faulty.callCount < n { break }  // the command finished before step n
            #expect(code != 0 || files == after, "a command that reports success has happened")
            n += 1
        }
        #expect(n > 3 && n < 300, "the command made a few file-system steps")
        #expect(sawBefore && sawAfter, "crashes before and after the commit point were both exercised")
    }
}
