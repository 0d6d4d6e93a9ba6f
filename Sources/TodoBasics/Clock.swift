#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Time as an input: commands read it through this seam so tests are deterministic.
public struct Clock: Sendable {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var nowMilliseconds: @Sendable () -> Int64

    public init(nowMilliseconds: @escaping @Sendable () -> Int64) {
        self.nowMilliseconds = nowMilliseconds
    }

    public static let live = Clock {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    public static func fixed(_ ms: Int64) -> Clock { Clock { ms } }

    /// The current time as protocol date text (`yyyy-MM-ddTHH:mm:ss.SSSZ`).
    public func nowText() -> String { Timestamp.format(milliseconds: nowMilliseconds()) }
}

/// UTC date text with exactly three fractional digits (protocol §4.3.1).
public enum Timestamp {
    public static func format(milliseconds: Int64) -> String {
        var out: [UInt8] = []
        append(milliseconds: milliseconds, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the 24 bytes of the date text; the server writes many of them per page, and two
    /// per answer to an insert. Digits are written in place with one division each (a loop per
    /// field, dividing down from a power of ten, cost 1,600 instructions a date).
    public static func append(milliseconds: Int64, to out: inout [UInt8]) {
        let ms = Int(((milliseconds % 1000) + 1000) % 1000)
        let totalSeconds = (milliseconds - Int64(ms)) / 1000
        var days = totalSeconds / 86_400
        var secondsOfDay = totalSeconds % 86_400
        if secondsOfDay < 0 { secondsOfDay += 86_400; days -= 1 }
        let (y, m, d) = civilFromDays(days)
        let hh = Int(secondsOfDay / 3600), mm = Int(secondsOfDay % 3600 / 60), ss = Int(secondsOfDay % 60)
        let year = Int(y)
        let zero = UInt8(ascii: "0")
        // A year is its last four digits (`% 10` of each place), as it always was; fields other
        // than the year are in range. A negative digit traps, as before.
        @inline(__always) func digit(_ v: Int) -> UInt8 { zero + UInt8(truncatingIfNeeded: v) }
        let text: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                   UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (
            digit(year / 1000 % 10), digit(year % 1000 / 100), digit(year % 100 / 10), digit(year % 10),
            UInt8(ascii: "-"), digit(m / 10), digit(m % 10), UInt8(ascii: "-"), digit(d / 10), digit(d % 10),
            UInt8(ascii: "T"), digit(hh / 10), digit(hh % 10), UInt8(ascii: ":"), digit(mm / 10), digit(mm % 10),
            UInt8(ascii: ":"), digit(ss / 10), digit(ss % 10), UInt8(ascii: "."),
            digit(ms / 100), digit(ms / 10 % 10), digit(ms % 10), UInt8(ascii: "Z"))
        withUnsafeBytes(of: text) { out.append(contentsOf: $0) }
    }

    /// Days since 1970-01-01 to a proleptic Gregorian (year, month, day) (H. Hinnant's algorithm).
    public static func civilFromDays(_ z0: Int64) -> (Int64, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = Int(doy - (153 * mp + 2) / 5 + 1)
        let m = Int(mp < 10 ? mp + 3 : mp - 9)
        return (m <= 2 ? y + 1 : y, m, d)
    }
}
