import Synchronization
import TodoBasics
import TodoCLI
import TodoSync

/// What one command printed and returned.
public struct CLIResult: Sendable, CustomStringConvertible {
    public var out: String
    public var err: String
    public var code: Int32

    /// The form golden files hold: stdout, stderr and the exit code.
    public var transcript: String {
        "$ exit \(code)\n--- stdout\n\(out)--- stderr\n\(err)"
    }

    public var description: String { transcript }

    public init(out: String, err: String, code: Int32) {
        self.out = out
        self.err = err
        self.code = code
    }
}

/// Runs `todo` in-process against a real folder, with a fixed clock that advances one second per
/// command and a seeded id generator, so outputs are byte-for-byte repeatable.
public final class CLIHarness: Sendable {
    public let directory: String
    private let counter = Mutex<Int64>(0)
    public let environment: [String: String]
    public let fs: any FileSystem
    /// The transport its commands reach the remote with; nil for the real one (a socket).
    public let transport: CommandContext.TransportMaker?
    /// Counts the header parses of the answers its commands get (`PushCostGuardTests`).
    public let replyCounter: ReplyCounter?

    public static let epoch: Int64 = 1_714_554_000_000  // 2024-05-01T09:00:00.000Z

    public init(directory: String, environment: [String: String] = [:], fs: any FileSystem = LocalFileSystem(),
                transport: CommandContext.TransportMaker? = nil, replyCounter: ReplyCounter? = nil) {
        self.directory = directory
        self.transport = transport
        self.replyCounter = replyCounter
        self.environment = environment
        self.fs = fs
    }

    @discardableResult
    public func run(_ args: String..., in subdirectory: String? = nil, fs override: (any FileSystem)? = nil) -> CLIResult {
        run(args, in: subdirectory, fs: override)
    }

    public func run(_ args: [String], in subdirectory: String? = nil, fs override: (any FileSystem)? = nil) -> CLIResult {
        let n = counter.withLock { c -> Int64 in c += 1; return c }
        let console = Console.capturing()
        var ctx = CommandContext(fs: override ?? fs, clock: .fixed(CLIHarness.epoch + n * 1000),
                                 ids: .seeded(UInt64(n)), environment: environment,
                                 workingDirectory: subdirectory.map { directory.appendingPath($0) } ?? directory,
                                 console: console, transport: transport)
        ctx.replyCounter = replyCounter
        let code = TodoMain.run(args, context: ctx)
        return CLIResult(out: console.capturedOut, err: console.capturedErr, code: code)
    }
}
