import TodoBasics

/// Reading the date forms of protocol §4.3.2:
///
///     yyyy-MM-dd
///     yyyy-MM-ddTHH:mm[:ss[.f{1,7}]][Z | +hh:mm | -hh:mm]     (no zone means UTC)
///
/// Why a hand-written scanner: the same parser serves filter literals, every string-to-date
/// comparison of a filter (once per row, so it must not allocate), and a client reading dates from
/// servers that send 0 to 7 fractional digits.
extension WireInstant {
    /// Parses `text`, or returns nil. Never allocates; use `parse(_:)` for a message.
    public init?(wireText text: String) {
        guard case .success(let instant) = WireDateScanner.scan(text) else { return nil }
        self = instant
    }

    /// Parses `text`, throwing an error that says what is wrong with it.
    public static func parse(_ text: String) throws(WireDateError) -> WireInstant {
        switch WireDateScanner.scan(text) {
        case .success(let instant): return instant
        case .failure(let problem): throw WireDateError(text: text, problem: problem)
        }
    }
}

/// Why a date text was refused.
public enum WireDateProblem: Equatable, Sendable {
    /// Not one of the §4.3.2 forms.
    case malformed
    /// More than seven fractional digits.
    case tooManyFractionDigits
    case monthOutOfRange(Int64)
    case dayOutOfRange(year: Int64, month: Int64, day: Int64)
    case hourOutOfRange(Int64)
    case minuteOutOfRange(Int64)
    case secondOutOfRange(Int64)
    case offsetOutOfRange
}

/// A refused date text, with a message for people.
public struct WireDateError: Error, Equatable, Sendable, CustomStringConvertible {
    public var text: String
    public var problem: WireDateProblem

    public init(text: String, problem: WireDateProblem) {
        self.text = text
        self.problem = problem
    }

    public static let expectedForm = "yyyy-MM-ddTHH:mm[:ss[.fffffff]][Z|+hh:mm|-hh:mm] or yyyy-MM-dd"

    public var description: String {
        switch problem {
        case .malformed: return "'\(text)' is not a date of the form \(Self.expectedForm)"
        case .tooManyFractionDigits: return "'\(text)' has more than 7 fractional digits"
        case .monthOutOfRange(let m): return "'\(text)' has month \(m); months are 1 to 12"
        case .dayOutOfRange(let y, let m, let d):
            let last = CivilDate.daysInMonth(year: y, month: m)
            return "'\(text)' has day \(d), but month \(m) of year \(y) has \(last) days"
        case .hourOutOfRange(let h): return "'\(text)' has hour \(h); hours are 0 to 23"
        case .minuteOutOfRange(let m): return "'\(text)' has minute \(m); minutes are 0 to 59"
        case .secondOutOfRange(let s): return "'\(text)' has second \(s); seconds are 0 to 59"
        case .offsetOutOfRange: return "'\(text)' has a zone offset outside -23:59 to +23:59"
        }
    }
}

/// The scanner behind both entry points. Works on the UTF-8 bytes in place.
enum WireDateScanner {
    enum Outcome {
        case success(WireInstant)
        case failure(WireDateProblem)
    }

    static func scan(_ text: String) -> Outcome {
        // The longest valid form (`yyyy-MM-ddTHH:mm:ss.fffffff+hh:mm`) is 33 bytes; anything much
        // longer is refused before looking at it.
        if text.utf8.count > 64 { return .failure(.malformed) }
        if let outcome = text.utf8.withContiguousStorageIfAvailable({ scan(bytes: $0) }) { return outcome }
        return Array(text.utf8).withUnsafeBufferPointer { scan(bytes: $0) }
    }

    static func scan(bytes: UnsafeBufferPointer<UInt8>) -> Outcome {
        var cursor = Cursor(bytes: bytes)
        guard let year = cursor.digits(4), cursor.take(UInt8(ascii: "-")),
              let month = cursor.digits(2), cursor.take(UInt8(ascii: "-")),
              let day = cursor.digits(2)
        else { return .failure(.malformed) }
        var hour: Int64 = 0, minute: Int64 = 0, second: Int64 = 0, fraction: Int64 = 0
        var offsetMinutes: Int64 = 0
        if !cursor.atEnd {
            guard cursor.take(UInt8(ascii: "T")), let h = cursor.digits(2), cursor.take(UInt8(ascii: ":")),
                  let m = cursor.digits(2)
            else { return .failure(.malformed) }
            hour = h
            minute = m
            if cursor.take(UInt8(ascii: ":")) {
                guard let s = cursor.digits(2) else { return .failure(.malformed) }
                second = s
                if cursor.take(UInt8(ascii: ".")) {
                    var count = 0
                    while let digit = cursor.digit() {
                        count += 1
                        if count > 7 { return .failure(.tooManyFractionDigits) }
                        fraction = fraction * 10 + digit
                    }
                    guard count > 0 else { return .failure(.malformed) }
                    for _ in count..<7 { fraction *= 10 }
                }
            }
            switch cursor.peek {
            case nil: break
            case UInt8(ascii: "Z")?: cursor.advance()
            case UInt8(ascii: "+")?, UInt8(ascii: "-")?:
                let sign: Int64 = cursor.peek == UInt8(ascii: "-") ? -1 : 1
                cursor.advance()
                guard let oh = cursor.digits(2), cursor.take(UInt8(ascii: ":")), let om = cursor.digits(2)
                else { return .failure(.malformed) }
                guard oh <= 23, om <= 59 else { return .failure(.offsetOutOfRange) }
                offsetMinutes = sign * (oh * 60 + om)
            default: return .failure(.malformed)
            }
            guard cursor.atEnd else { return .failure(.malformed) }
        }
        guard (1...12).contains(month) else { return .failure(.monthOutOfRange(month)) }
        guard day >= 1, day <= CivilDate.daysInMonth(year: year, month: month) else {
            return .failure(.dayOutOfRange(year: year, month: month, day: day))
        }
        guard hour <= 23 else { return .failure(.hourOutOfRange(hour)) }
        guard minute <= 59 else { return .failure(.minuteOutOfRange(minute)) }
        guard second <= 59 else { return .failure(.secondOutOfRange(second)) }
        let parts = WireDateParts(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second,
            fractionTicks: fraction)
        guard let local = WireInstant(utc: parts) else { return .failure(.malformed) }
        return .success(WireInstant(ticks: local.ticks - offsetMinutes * 60 * WireInstant.ticksPerSecond))
    }

    /// A read position over the bytes.
    struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        var atEnd: Bool { index >= bytes.count }
        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func advance() { index += 1 }

        mutating func take(_ byte: UInt8) -> Bool {
            guard peek == byte else { return false }
            index += 1
            return true
        }

        mutating func digit() -> Int64? {
            guard let b = peek, b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else { return nil }
            index += 1
            return Int64(b - UInt8(ascii: "0"))
        }

        /// Exactly `count` digits as a number.
        mutating func digits(_ count: Int) -> Int64? {
            var value: Int64 = 0
            for _ in 0..<count {
                guard let d = digit() else { return nil }
                value = value * 10 + d
            }
            return value
        }
    }
}
