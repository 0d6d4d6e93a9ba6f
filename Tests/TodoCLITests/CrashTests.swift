import Testing
import TodoBasics
import TodoCLI
import TodoTestSupport

/// A command stopped at every file-system step (as kill -9 would stop it) leaves a store that
/// opens, that `todo doctor` finds clean, and that holds exactly the state before or after the
/// command: never a part of it.
@Suite struct CrashTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var fixture: String
        var args: [String]
        var testDescription: String { "\(fixture): todo \(args.joined(separator: " "))" }
    }

    static let cases: [Case] = [
        Case(fixture: "synced", args: ["add", "Buy milk", "--set", "priority=2"]),
        Case(fixture: "synced", args: ["add", "New table", "--table", "shopping"]),
        Case(fixture: "synced", args: ["edit", "d265", "--text", "b"]),
        Case(fixture: "synced", args: ["rm", "d2a1"]),
        Case(fixture: "conflict", args: ["undone", "d2a1"]),
        Case(fixture: "torn-journal", args: ["add", "after a crash"]),
    ]

    static func run(_ args: [String], in dir: String, fs: any FileSystem) -> Int32 {
        let ctx = CommandContext(fs: fs, clock: .fixed(CLIHarness.epoch), ids: .seeded(42), environment: [:],
                                 workingDirectory: dir, console: .capturing())
        return TodoMain.run(args, context: ctx)
    }

    /// The store as the next command sees it: recovered, then every file's bytes.
    static func recoveredState(_ dir: String) -> (doctor: String?, files: [String: String]) {
        let console = Console.capturing()
        let ctx = CommandContext(fs: LocalFileSystem(), clock: .fixed(CLIHarness.epoch), ids: .seeded(42), environment: [:],
                                 workingDirectory: dir, console: console)
        let code = TodoMain.run(["doctor"], context: ctx)
        return (code == 0 ? nil : console.capturedOut + console.capturedErr, snapshot(dir))
    }

    @Test(arguments: cases)
    func everyStepLeavesBeforeOrAfter(_ c: Case) throws {
        let base = TempDirectory("todo-crash")
        defer { base.remove() }
        Fixtures.copy("Stores/\(c.fixture)", to: base.sub("before"))
        let before = Self.recoveredState(base.sub("before")).files
        Fixtures.copy("Stores/\(c.fixture)", to: base.sub("after"))
        #expect(Self.run(c.args, in: base.sub("after"), fs: LocalFileSystem()) == 0)
        let after = Self.recoveredState(base.sub("after")).files
        #expect(before != after)

        var n = 1
        var sawBefore = false, sawAfter = false
        while n < 200 {
            let dir = base.sub("crash-\(n)")
            Fixtures.copy("Stores/\(c.fixture)", to: dir)
            let faulty = FaultyFileSystem(base: LocalFileSystem(), failOnCall: n)
            let code = Self.run(c.args, in: dir, fs: faulty)
            let (doctor, files) = Self.recoveredState(dir)
            #expect(doctor == nil, "step \(n): todo doctor is clean")
            #expect(files == before || files == after,
                    "step \(n): differs from before in \(changedPaths(files, before)), from after in \(changedPaths(files, after))")
            if files == before { sawBefore = true }
            if files == after { sawAfter = true }
            if code == 0 && faulty.callCount < n { break }  // the command finished before step n
            #expect(code != 0 || files == after, "a command that reports success has happened")
            n += 1
        }
        #expect(n > 3 && n < 200, "the command made a few file-system steps")
        #expect(sawBefore && sawAfter, "crashes before and after the commit point were both exercised")
    }
}
