import TodoStore

/// A command that stops: its kind sets the exit code (in `TodoMain`, nowhere else), and it has
/// two lines for people: what went wrong, and what to do.
public struct CLIError: Error, Equatable {
    public enum Kind: Equatable, Sendable {
        /// Bad arguments: exit 2.
        case usage
        /// Anything the user or the store must fix: exit 1.
        case failure
        /// Network or authentication: exit 4.
        case network
        /// A bug: exit 1, with a request to report it.
        case `internal`
    }

    public var kind: Kind
    public var message: String
    public var hint: String?

    public init(_ kind: Kind, _ message: String, hint: String? = nil) {
        self.kind = kind
        self.message = message
        self.hint = hint
    }

    public static func usage(_ message: String, command: String) -> CLIError {
        CLIError(.usage, message, hint: "see 'todo \(command) --help'")
    }

    public static func store(_ error: StoreError) -> CLIError {
        CLIError(.failure, error.message, hint: error.hint)
    }
}

/// Exit codes (README "Exit codes").
public enum ExitCode {
    public static let ok: Int32 = 0
    public static let failure: Int32 = 1
    public static let usage: Int32 = 2
    public static let conflicts: Int32 = 3
    public static let network: Int32 = 4
}
