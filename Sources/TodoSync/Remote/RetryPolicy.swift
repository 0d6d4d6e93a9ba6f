/// When and how long to wait before trying a request again (protocol §10.6): 3 attempts, waits
/// of 1 s then 3 s plus up to 20% jitter, a `Retry-After` up to 30 s replacing the wait.
/// A failure that proves nothing reached the server (no route, refused, TLS) gets one short retry
/// only: a server that is down should cost a user seconds, not minutes (issue 19 item 4).
/// The sleep is a seam so tests run the policy without waiting.
public struct RetryPolicy: Sendable {
    public var attempts: Int
    public var waits: [Double]
    /// Waits before the retries of a request that could not reach the server.
    public var unreachableWaits: [Double] = [0.5]
    public var maximumRetryAfter: Double
    public var jitter: @Sendable () -> Double
    public var sleep: @Sendable (Double) -> Void

    public init(attempts: Int = 3, waits: [Double] = [1, 3], maximumRetryAfter: Double = 30,
                jitter: @escaping @Sendable () -> Double = { Double.random(in: 0...0.2) },
                sleep: @escaping @Sendable (Double) -> Void = RetryPolicy.threadSleep) {
        self.attempts = attempts
        self.waits = waits
        self.maximumRetryAfter = maximumRetryAfter
        self.jitter = jitter
        self.sleep = sleep
    }

    /// The wait before attempt `attempt + 1` (attempts count from 1), or nil when no attempt is left
    /// or the server asked for a longer pause than we wait.
    public func delay(after attempt: Int, retryAfter: Double?) -> Double? {
        guard attempt < attempts else { return nil }
        if let retryAfter {
            return retryAfter <= maximumRetryAfter ? max(0, retryAfter) : nil
        }
        let base = waits.isEmpty ? 0 : waits[min(attempt - 1, waits.count - 1)]
        return base * (1 + jitter())
    }

    /// The wait before attempt `attempt + 1` after a failure without an answer, or nil when no
    /// attempt is left.
    public func delay(after attempt: Int, failure: TransportFailure) -> Double? {
        guard !failure.mayHaveReachedServer else { return delay(after: attempt, retryAfter: nil) }
        guard attempt <= unreachableWaits.count else { return nil }
        return unreachableWaits[attempt - 1] * (1 + jitter())
    }

    /// Statuses worth another attempt: 408, 429, every 5xx.
    public static func isRetryable(status: Int) -> Bool {
        status == 408 || status == 429 || (500...599).contains(status)
    }

    @Sendable public static func threadSleep(_ seconds: Double) {
        guard seconds > 0 else { return }
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 { request = remaining }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
