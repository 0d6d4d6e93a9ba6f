import Testing
import TodoBasics
@testable import TableProtocol

@Suite("WireInstant: dates of protocol §4.3")
struct WireInstantTests {
    /// Ticks for a UTC date computed independently of CivilDate: whole days counted by hand.
    private func ticks(days: Int64, hour: Int64 = 0, minute: Int64 = 0, second: Int64 = 0, fraction: Int64 = 0) -> Int64 {
        ((days * 24 + hour) * 60 + minute) * 60 * 10_000_000 + second * 10_000_000 + fraction
    }

    @Test("every input form of §4.3.2 reads as the same instant")
    func inputForms() throws {
        // 2024-05-01 is day 19844 since 1970-01-01.
        let nine = ticks(days: 19844, hour: 9)
        let forms: [(String, Int64)] = [
            ("2024-05-01T09:00", nine),
            ("2024-05-01T09:00Z", nine),
            ("2024-05-01T09:00:00", nine),
            ("2024-05-01T09:00:00Z", nine),
            ("2024-05-01T09:00:00.0Z", nine),
            ("2024-05-01T09:00:00.000Z", nine),
            ("2024-05-01T09:00:00.0000000Z", nine),
            ("2024-05-01T11:00:00+02:00", nine),
            ("2024-05-01T04:30-04:30", nine),
            ("2024-05-01T09:00:00+00:00", nine),
            ("2024-05-01T09:00:00.5Z", nine + 5_000_000),
            ("2024-05-01T09:00:00.120Z", nine + 1_200_000),
            ("2024-05-01T09:00:00.1234567Z", nine + 1_234_567),
            ("2024-05-01T09:00:00.1234567", nine + 1_234_567),
            ("2024-05-01", ticks(days: 19844)),
        ]
        for (text, expected) in forms {
            let instant = try WireInstant.parse(text)
            #expect(instant.ticks == expected, "\(text)")
            #expect(WireInstant(wireText: text) == instant)
        }
    }

    @Test("refused texts name their problem", arguments: [
        ("2024-13-01T00:00Z", WireDateProblem.monthOutOfRange(13)),
        ("2024-00-01", .monthOutOfRange(0)),
        ("2024-02-30T00:00Z", .dayOutOfRange(year: 2024, month: 2, day: 30)),
        ("2023-02-29", .dayOutOfRange(year: 2023, month: 2, day: 29)),
        ("1900-02-29", .dayOutOfRange(year: 1900, month: 2, day: 29)),
        ("2024-04-31T00:00Z", .dayOutOfRange(year: 2024, month: 4, day: 31)),
        ("2024-05-00", .dayOutOfRange(year: 2024, month: 5, day: 0)),
        ("2024-05-01T24:00Z", .hourOutOfRange(24)),
        ("2024-05-01T23:60Z", .minuteOutOfRange(60)),
        ("2024-05-01T23:59:60Z", .secondOutOfRange(60)),
        ("2024-05-01T09:00:00.12345678Z", .tooManyFractionDigits),
        ("2024-05-01T09:00:00+24:00", .offsetOutOfRange),
        ("2024-05-01T09:00:00.Z", .malformed),
        ("2024-05-01T09", .malformed),
        ("2024-05-01T9:00", .malformed),
        ("2024-5-01", .malformed),
        ("24-05-01", .malformed),
        ("2024-05-01Z", .malformed),
        ("2024-05-01T09:00:00z", .malformed),
        ("2024-05-01 09:00:00Z", .malformed),
        ("2024-05-01T09:00:00+0200", .malformed),
        ("2024-05-01T09:00:00Z ", .malformed),
        ("", .malformed),
        ("not a date", .malformed),
    ])
    func rejects(text: String, problem: WireDateProblem) {
        #expect(WireInstant(wireText: text) == nil)
        #expect(throws: WireDateError(text: text, problem: problem)) { try WireInstant.parse(text) }
        let message = WireDateError(text: text, problem: problem).description
        #expect(message.contains("'\(text)'"))
    }

    @Test("leap years: divisible by 4, except centuries not divisible by 400")
    func leapYears() throws {
        for (year, leap) in [(2024, true), (2023, false), (2000, true), (1900, false), (2100, false), (2400, true)] {
            #expect((WireInstant(wireText: "\(year)-02-29") != nil) == leap, "\(year)")
        }
        // The day after 2024-02-28 is 02-29; after 2023-02-28 it is 03-01.
        let day = WireInstant.ticksPerDay
        #expect(try WireInstant.parse("2024-03-01").ticks - WireInstant.parse("2024-02-28").ticks == 2 * day)
        #expect(try WireInstant.parse("2023-03-01").ticks - WireInstant.parse("2023-02-28").ticks == day)
        #expect(try WireInstant.parse("2001-01-01").ticks - WireInstant.parse("2000-01-01").ticks == 366 * day)
    }

    @Test("a negative offset can move the instant to the next day, a positive one to the previous")
    func offsetsCrossingDays() throws {
        #expect(try WireInstant.parse("2024-12-31T22:30:00-05:00").wireText == "2025-01-01T03:30:00.000Z")
        #expect(try WireInstant.parse("2024-03-01T01:00:00+02:00").wireText == "2024-02-29T23:00:00.000Z")
        #expect(try WireInstant.parse("1970-01-01T00:00:00+00:01").ticks == -60 * WireInstant.ticksPerSecond)
    }

    @Test("output is yyyy-MM-ddTHH:mm:ss.SSSZ, UTC, three digits, sub-milliseconds dropped")
    func formatting() throws {
        #expect(try WireInstant.parse("2024-05-01T09:00:00.12Z").wireText == "2024-05-01T09:00:00.120Z")
        #expect(try WireInstant.parse("2024-05-01T09:00:00.1239999Z").wireText == "2024-05-01T09:00:00.123Z")
        #expect(try WireInstant.parse("2024-05-01").wireText == "2024-05-01T00:00:00.000Z")
        #expect(try WireInstant.parse("0001-01-01T00:00Z").wireText == "0001-01-01T00:00:00.000Z")
        #expect(try WireInstant.parse("9999-12-31T23:59:59.9999999Z").wireText == "9999-12-31T23:59:59.999Z")
        #expect(WireInstant.epoch.wireText == "1970-01-01T00:00:00.000Z")
        // Before 1970, truncation still goes towards the past.
        #expect(WireInstant(ticks: -1).wireText == "1969-12-31T23:59:59.999Z")
        #expect(try WireInstant.parse("2024-05-01T09:00:00.1234567Z").sevenDigitText == "2024-05-01T09:00:00.1234567Z")
        #expect(WireInstant(ticks: Int64.min).wireText.count > 0)
        #expect(WireInstant(ticks: Int64.max).wireText.count > 0)
    }

    @Test("formatting and parsing round-trip for every millisecond instant sampled")
    func roundTrip() throws {
        var random = SplitMix64(seed: 4_3_1)
        for _ in 0..<2000 {
            // Years 0000 to 9999.
            let ms = Int64.random(in: -62_167_219_200_000...253_402_300_799_999, using: &random)
            let instant = WireInstant(milliseconds: ms)
            #expect(try WireInstant.parse(instant.wireText) == instant)
            #expect(instant.milliseconds == ms)
        }
    }

    @Test("milliseconds convert both ways and round towards the past")
    func milliseconds() {
        #expect(WireInstant(milliseconds: 1_714_554_000_120).wireText == "2024-05-01T09:00:00.120Z")
        #expect(WireInstant(milliseconds: 1_714_554_000_120).ticks == 17_145_540_001_200_000)
        #expect(WireInstant(ticks: 19_999).milliseconds == 1)
        #expect(WireInstant(ticks: -1).milliseconds == -1)
        #expect(WireInstant(milliseconds: Int64.max).ticks == Int64.max)
        #expect(WireInstant(milliseconds: Int64.min).ticks == Int64.min)
    }

    @Test("UTC calendar parts")
    func parts() throws {
        let parts = try WireInstant.parse("2024-02-29T23:59:58.1234567+01:00").utcParts
        #expect(parts == WireDateParts(year: 2024, month: 2, day: 29, hour: 22, minute: 59, second: 58,
                                       fractionTicks: 1_234_567))
        #expect(WireInstant(ticks: -1).utcParts.year == 1969)
        #expect(WireInstant(utc: parts)?.wireText == "2024-02-29T22:59:58.123Z")
        #expect(WireInstant(utc: WireDateParts(year: 2023, month: 2, day: 29, hour: 0, minute: 0, second: 0,
                                               fractionTicks: 0)) == nil)
    }

    @Test("instants order by ticks, at 100 ns resolution (§4.3.3)")
    func ordering() throws {
        let stored = try WireInstant.parse("2024-05-01T09:00:00.123Z")
        let literal = try WireInstant.parse("2024-05-01T09:00:00.1234567Z")
        #expect(stored < literal)
        #expect(literal.truncatedToMilliseconds == stored)
        #expect(try WireInstant.parse("2024-05-01T11:00:00+02:00") == WireInstant.parse("2024-05-01T09:00Z"))
    }
}
