#if canImport(Glibc)
import Glibc
#endif
import TodoBasics
import TodoSync

/// Everything a command may touch, passed in explicitly: files, clock, ids, environment, console.
/// Only `live` reads the process environment; tests build their own.
public struct CommandContext: Sendable {
    public var fs: any FileSystem
    public var clock: Clock
    public var ids: IDGenerator
    public var environment: [String: String]
    public var workingDirectory: String
    public var console: Console
    /// What stdout is (`Terminal`); without one given, `TODO_TEST_TERMINAL` or not a terminal.
    public var terminal: Terminal
    /// Makes the transport to a remote; nil for the real ones (`Transports.make`: sockets, TLS,
    /// the https helper). A seam so tests can run commands against a server in this process,
    /// without a socket.
    public var transport: TransportMaker?

    /// Counts the header parses of the answers a command gets (a seam for the guards that count
    /// work instead of timing it); nil: not counted.
    public var replyCounter: ReplyCounter?

    public typealias TransportMaker = @Sendable (RemoteEndpoint) -> any HTTPTransport

    public init(fs: any FileSystem, clock: Clock, ids: IDGenerator, environment: [String: String],
                workingDirectory: String, console: Console, terminal: Terminal? = nil, transport: TransportMaker? = nil) {
        self.transport = transport
        self.terminal = terminal ?? Terminal.fromTestSeam(environment) ?? .notATerminal
        self.fs = fs
        self.clock = clock
        self.ids = ids
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.console = console
    }

    /// The real process: its environment, working directory, clock and console. `TODO_TEST_NOW`
    /// (milliseconds since 1970) and `TODO_TEST_ID_SEED` make the built binary deterministic for tests.
    public static func live() -> CommandContext {
        let environment = ProcessEnvironment.current()
        var buffer = [CChar](repeating: 0, count: 4096)
        let cwd = getcwd(&buffer, buffer.count) != nil
            ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "."
        let clock = environment["TODO_TEST_NOW"].flatMap(Int64.init).map(Clock.fixed) ?? .live
        let ids = environment["TODO_TEST_ID_SEED"].flatMap(UInt64.init).map(IDGenerator.seeded) ?? .live
        return CommandContext(fs: LocalFileSystem(), clock: clock, ids: ids, environment: environment,
                              workingDirectory: cwd, console: .standard(), terminal: .detect(environment))
    }
}
