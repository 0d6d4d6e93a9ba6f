/// Size limits enforced while parsing, so hostile or broken peers cannot make us buffer without bound.
public struct HTTPLimits: Sendable, Equatable {
    /// Longest request-target accepted; longer → 414.
    public var maxTargetBytes: Int
    /// Largest header section (field lines plus the empty line; not the start line); larger → 431.
    /// Chunked trailers get the same allowance.
    public var maxHeaderBytes: Int
    /// Largest body after de-chunking; larger → 413.
    public var maxBodyBytes: Int

    public init(maxTargetBytes: Int = 16_384, maxHeaderBytes: Int = 65_536, maxBodyBytes: Int = 1_048_576) {
        self.maxTargetBytes = maxTargetBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
    }

    /// The protocol's server limits (protocol §3.3).
    public static let requestDefaults = HTTPLimits()
    /// Our client accepts larger bodies: a page of rows can exceed a single request's 1 MiB.
    public static let responseDefaults = HTTPLimits(maxBodyBytes: 64 * 1_048_576)
}
