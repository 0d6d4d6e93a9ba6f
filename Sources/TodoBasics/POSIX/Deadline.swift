/// The moment an exchange has failed if it is not done: one per connect, request or query, shared
/// by every read and write in it, so a timeout bounds the whole exchange, not each system call.
public struct Deadline: Sendable {
    public let instant: ContinuousClock.Instant
    /// The timeout it was made from, for messages.
    public let seconds: Double

    public init(secondsFromNow seconds: Double) {
        self.seconds = seconds
        instant = ContinuousClock.now.advanced(by: .nanoseconds(Int64((max(0, seconds) * 1e9).rounded())))
    }

    /// What is left, rounded up to whole milliseconds for `poll`; 0 once passed.
    public var remainingMilliseconds: Int32 {
        let left = ContinuousClock.now.duration(to: instant)
        guard left > .zero else { return 0 }
        let (whole, attoseconds) = left.components
        return Int32(clamping: whole * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }

    public var hasPassed: Bool { ContinuousClock.now >= instant }

    /// "10 s", "0.5 s": how timeouts appear in messages.
    public var text: String { secondsText(seconds) }
}

/// "30 s", "0.3 s": how timeouts appear in messages.
public func secondsText(_ seconds: Double) -> String {
    seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
}
