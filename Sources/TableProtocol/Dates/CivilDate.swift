/// Proleptic Gregorian calendar arithmetic in UTC, without Foundation's `Calendar`.
///
/// Why our own: the wire only ever needs UTC, the algorithms are a few lines (Howard Hinnant's
/// `days_from_civil` / `civil_from_days`), and they are exact for every year with no time zone
/// database or locale involved.
enum CivilDate {
    /// Days since 1970-01-01 for a valid proleptic Gregorian date.
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day number (days since 1970-01-01).
    static func civilFromDays(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    static func isLeapYear(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// 28 to 31; `month` must be 1...12.
    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

/// The UTC calendar fields of an instant, for `year(d)` … `second(d)` (§8.7) and for formatting.
public struct WireDateParts: Equatable, Sendable {
    public var year: Int64
    public var month: Int64
    public var day: Int64
    public var hour: Int64
    public var minute: Int64
    public var second: Int64
    /// 100-ns ticks within the second, 0..<10,000,000.
    public var fractionTicks: Int64
}

extension WireInstant {
    /// Instants this far from 1970 (about ±12,000 years) are the calendar's limit; `utcParts`
    /// clamps to it so that arithmetic near `Int64.min`/`max` cannot overflow.
    static let calendarLimitTicks: Int64 = 4_000_000_000_000_000_000

    /// The UTC calendar fields of this instant (clamped to ±12,000 years around 1970).
    public var utcParts: WireDateParts {
        let clamped = min(max(ticks, -Self.calendarLimitTicks), Self.calendarLimitTicks)
        let days = Self.floorDivide(clamped, Self.ticksPerDay)
        let ticksOfDay = clamped - days * Self.ticksPerDay
        let date = CivilDate.civilFromDays(days)
        let secondsOfDay = ticksOfDay / Self.ticksPerSecond
        return WireDateParts(
            year: date.year, month: date.month, day: date.day,
            hour: secondsOfDay / 3600, minute: secondsOfDay / 60 % 60, second: secondsOfDay % 60,
            fractionTicks: ticksOfDay % Self.ticksPerSecond)
    }

    /// The instant of UTC calendar fields. Returns nil when a field is out of range
    /// (month 1–12, a valid day of that month, hour 0–23, minute and second 0–59,
    /// fraction 0..<10^7 ticks, year 0–9999).
    public init?(utc parts: WireDateParts) {
        guard (0...9999).contains(parts.year), (1...12).contains(parts.month),
              parts.day >= 1, parts.day <= CivilDate.daysInMonth(year: parts.year, month: parts.month),
              (0...23).contains(parts.hour), (0...59).contains(parts.minute), (0...59).contains(parts.second),
              (0..<Self.ticksPerSecond).contains(parts.fractionTicks)
        else { return nil }
        let days = CivilDate.daysFromCivil(year: parts.year, month: parts.month, day: parts.day)
        let seconds = days * 86_400 + parts.hour * 3600 + parts.minute * 60 + parts.second
        self.init(ticks: seconds * Self.ticksPerSecond + parts.fractionTicks)
    }
}
