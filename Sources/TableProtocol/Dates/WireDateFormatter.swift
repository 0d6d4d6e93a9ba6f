/// Writing dates as protocol §4.3.1 requires: `yyyy-MM-ddTHH:mm:ss.SSSZ`, UTC, exactly three
/// fractional digits.
extension WireInstant {
    /// The §4.3.1 text, e.g. `2024-05-01T09:00:00.120Z`. Sub-millisecond ticks are dropped
    /// (rounded towards the past), because the server stores milliseconds (§4.3.3).
    ///
    /// Years outside 0000–9999 cannot come from `parse` but can from `init(ticks:)`; they are written
    /// with a `-` sign or more digits rather than being clamped, so no instant is ever misprinted.
    public var wireText: String {
        truncatedToMilliseconds.text(fractionDigits: 3)
    }

    /// The instant with all seven fractional digits, `yyyy-MM-ddTHH:mm:ss.fffffffZ`: a form of
    /// §4.3.2 that loses nothing, for filter literals built from an instant.
    public var sevenDigitText: String {
        text(fractionDigits: 7)
    }

    /// `fractionDigits` is 3 (milliseconds; sub-millisecond ticks must already be gone) or 7.
    private func text(fractionDigits: Int) -> String {
        let parts = utcParts
        var out: [UInt8] = []
        out.reserveCapacity(24)
        var year = parts.year
        if year < 0 {
            out.append(UInt8(ascii: "-"))
            year = -year
        }
        Self.appendDigits(year, minimumWidth: 4, to: &out)
        out.append(UInt8(ascii: "-"))
        Self.appendDigits(parts.month, minimumWidth: 2, to: &out)
        out.append(UInt8(ascii: "-"))
        Self.appendDigits(parts.day, minimumWidth: 2, to: &out)
        out.append(UInt8(ascii: "T"))
        Self.appendDigits(parts.hour, minimumWidth: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        Self.appendDigits(parts.minute, minimumWidth: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        Self.appendDigits(parts.second, minimumWidth: 2, to: &out)
        out.append(UInt8(ascii: "."))
        if fractionDigits == 7 {
            Self.appendDigits(parts.fractionTicks, minimumWidth: 7, to: &out)
        } else {
            Self.appendDigits(parts.fractionTicks / Self.ticksPerMillisecond, minimumWidth: 3, to: &out)
        }
        out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends a non-negative number in decimal, left-padded with zeros.
    private static func appendDigits(_ value: Int64, minimumWidth: Int, to out: inout [UInt8]) {
        var width = 1
        var power: Int64 = 10
        while width < 18, value >= power {  // callers pass values far below 10^18
            width += 1
            power *= 10
        }
        for _ in width..<max(minimumWidth, width) { out.append(UInt8(ascii: "0")) }
        var divisor = power / 10
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }
}
