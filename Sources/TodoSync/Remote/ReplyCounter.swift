import Synchronization

/// Counts the parses of answers' headers, for the guard that holds a push to one parse per
/// answer (issue 16 item 7); a `TableClient` counts only when tests give it one.
public final class ReplyCounter: Sendable {
    private let parses = Atomic<Int>(0)

    public init() {}

    public var headerParses: Int { parses.load(ordering: .relaxed) }
    func countParse() { parses.add(1, ordering: .relaxed) }
}
