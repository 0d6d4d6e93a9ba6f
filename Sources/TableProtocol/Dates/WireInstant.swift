/// An instant on the wire: 100-nanosecond ticks since 1970-01-01T00:00:00Z (protocol §4.3).
///
/// Why ticks and not `Date` or milliseconds: filter literals carry up to seven fractional digits and
/// must compare at that resolution (§4.3.3: `…09:00:00.1234567Z` is after a stored `…09:00:00.123Z`),
/// while the server stores and prints milliseconds. An `Int64` of ticks holds both exactly and covers
/// years 0000 to 9999 with room to spare.
public struct WireInstant: Hashable, Comparable, Sendable {
    /// 100-nanosecond ticks since the Unix epoch; negative before 1970.
    public var ticks: Int64

    public static let ticksPerMillisecond: Int64 = 10_000
    public static let ticksPerSecond: Int64 = 10_000_000
    public static let ticksPerDay: Int64 = 86_400 * ticksPerSecond

    /// 1970-01-01T00:00:00.000Z.
    public static let epoch = WireInstant(ticks: 0)

    public init(ticks: Int64) {
        self.ticks = ticks
    }

    /// An instant from Unix milliseconds, the resolution the server stores (§4.3.3).
    /// Values beyond ±29,000 years saturate instead of trapping.
    public init(milliseconds: Int64) {
        let (product, overflow) = milliseconds.multipliedReportingOverflow(by: Self.ticksPerMillisecond)
        if overflow {
            self.ticks = milliseconds < 0 ? Int64.min : Int64.max
        } else {
            self.ticks = product
        }
    }

    /// Whole Unix milliseconds, rounded down (towards the past), so that sub-millisecond ticks never
    /// move an instant later than it was.
    public var milliseconds: Int64 {
        Self.floorDivide(ticks, Self.ticksPerMillisecond)
    }

    /// The same instant with the sub-millisecond ticks dropped (rounded towards the past), as the
    /// server stores it.
    public var truncatedToMilliseconds: WireInstant {
        WireInstant(milliseconds: milliseconds)
    }

    public static func < (lhs: WireInstant, rhs: WireInstant) -> Bool {
        lhs.ticks < rhs.ticks
    }

    /// Division rounding towards negative infinity (Swift's `/` truncates towards zero).
    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }
}

extension WireInstant: CustomStringConvertible {
    /// The §4.3.1 text, e.g. `2024-05-01T09:00:00.120Z`.
    public var description: String { wireText }
}
