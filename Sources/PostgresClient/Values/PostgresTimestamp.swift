import TodoBasics

/// A `timestamptz`: microseconds since 1970-01-01 00:00:00 UTC, PostgreSQL's own precision.
/// Sent and read as ISO text in UTC (the session runs with `TimeZone=UTC`, `DateStyle=ISO`).
/// Years 1–9999 only; `infinity` and BC dates are refused when read.
public struct PostgresTimestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var microsecondsSince1970: Int64

    public init(microsecondsSince1970: Int64) {
        self.microsecondsSince1970 = microsecondsSince1970
    }

    public init(millisecondsSince1970: Int64) {
        microsecondsSince1970 = millisecondsSince1970 * 1000
    }

    public static func < (a: Self, b: Self) -> Bool { a.microsecondsSince1970 < b.microsecondsSince1970 }

    /// `2024-05-01 09:00:00.120000+00`
    public var postgresText: String {
        let micros = microsecondsSince1970
        let days = micros >= 0 ? micros / 86_400_000_000 : (micros - 86_399_999_999) / 86_400_000_000
        let inDay = micros - days * 86_400_000_000
        let (year, month, day) = CivilDate.civilFromDays(days)
        let seconds = inDay / 1_000_000, fraction = inDay % 1_000_000
        func pad(_ n: Int64, _ width: Int) -> String {
            let digits = String(n)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2)) \(pad(seconds / 3600, 2)):\(pad(seconds / 60 % 60, 2)):"
            + "\(pad(seconds % 60, 2)).\(pad(fraction, 6))+00"
    }

    public var description: String { postgresText }

    /// Reads timestamptz output: `YYYY-MM-DD HH:MM:SS[.ffffff]±HH[:MM[:SS]]`.
    init?(postgresText text: String) {
        let b = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= b.count, !range.isEmpty else { return nil }
            var value: Int64 = 0
            for i in range {
                guard (48...57).contains(b[i]) else { return nil }
                value = value * 10 + Int64(b[i] - 48)
            }
            return value
        }
        guard b.count >= 19, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[10] == UInt8(ascii: " "),
              b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var i = 19
        var micros: Int64 = 0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            let start = i + 1
            i = start
            while i < b.count, (48...57).contains(b[i]) { i += 1 }
            guard i > start, i - start <= 6, let digits = number(start..<i) else { return nil }
            micros = digits
            for _ in 0..<(6 - (i - start)) { micros *= 10 }
        }
        guard i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") else { return nil }
        let sign: Int64 = b[i] == UInt8(ascii: "-") ? -1 : 1
        var offsetSeconds: Int64 = 0
        var part = i + 1
        for multiplier in [Int64(3600), 60, 1] where part < b.count {
            guard let value = number(part..<(part + 2)) else { return nil }
            offsetSeconds += value * multiplier
            part += 2
            if part < b.count {
                guard b[part] == UInt8(ascii: ":") else { return nil }
                part += 1
            }
        }
        guard part == b.count else { return nil }
        let days = CivilDate.daysFromCivil(year: year, month: month, day: day)
        let local = ((days * 24 + hour) * 60 + minute) * 60 + second
        microsecondsSince1970 = (local - sign * offsetSeconds) * 1_000_000 + micros
    }
}
