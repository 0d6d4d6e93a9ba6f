#if canImport(Glibc)
import Glibc
#endif

/// What stdout is: a terminal of some width, or a file or pipe. `list` cuts lines to the width
/// and colours them only on a terminal, so scripts get whole, plain lines.
///
/// `TODO_TEST_TERMINAL=WIDTH` makes stdout count as a terminal of that width: the seam that
/// lets tests (and the built binary under test) see the terminal form without a pseudo-terminal.
public struct Terminal: Sendable, Equatable {
    public var isTerminal: Bool
    /// Columns; nil when unknown (not a terminal: nothing is cut).
    public var width: Int?

    public init(isTerminal: Bool, width: Int?) {
        self.isTerminal = isTerminal
        self.width = width
    }

    public static let notATerminal = Terminal(isTerminal: false, width: nil)

    /// From the test seam alone; nil without it.
    static func fromTestSeam(_ environment: [String: String]) -> Terminal? {
        guard let text = environment["TODO_TEST_TERMINAL"], let width = Int(text), width > 0 else { return nil }
        return Terminal(isTerminal: true, width: width)
    }

    /// The process's stdout: the seam, else isatty(1) with `COLUMNS` (as git reads it first), else
    /// the TIOCGWINSZ ioctl, else 80 columns.
    static func detect(_ environment: [String: String]) -> Terminal {
        if let seam = fromTestSeam(environment) { return seam }
        guard isatty(1) == 1 else { return .notATerminal }
        if let text = environment["COLUMNS"], let columns = Int(text), columns > 0 { return Terminal(isTerminal: true, width: columns) }
        var size = winsize()
        if ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Terminal(isTerminal: true, width: Int(size.ws_col)) }
        return Terminal(isTerminal: true, width: 80)
    }
}
