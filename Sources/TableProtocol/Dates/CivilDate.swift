import TodoBasics

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
