import Testing
@testable import TodoBasics

/// `Timestamp.append` writes its digits with one division each; the bytes must stay those of the
/// loop it replaced (dividing down from a power of ten per field), kept here as the reference.
@Suite struct TimestampDigitsTests {
    private func reference(_ milliseconds: Int64) -> [UInt8] {
        var out: [UInt8] = []
        let ms = Int(((milliseconds % 1000) + 1000) % 1000)
        let totalSeconds = (milliseconds - Int64(ms)) / 1000
        var days = totalSeconds / 86_400
        var secondsOfDay = totalSeconds % 86_400
        if secondsOfDay < 0 { secondsOfDay += 86_400; days -= 1 }
        let (y, m, d) = Timestamp.civilFromDays(days)
        let hh = Int(secondsOfDay / 3600), mm = Int(secondsOfDay % 3600 / 60), ss = Int(secondsOfDay % 60)
        func digits(_ value: Int, _ width: Int) {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            var v = value
            for _ in 0..<width {
                out.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: (v / divisor) % 10))
                v %= divisor
                divisor /= 10
                if divisor == 0 { divisor = 1 }
            }
        }
        digits(Int(y), 4); out.append(UInt8(ascii: "-")); digits(m, 2); out.append(UInt8(ascii: "-")); digits(d, 2)
        out.append(UInt8(ascii: "T")); digits(hh, 2); out.append(UInt8(ascii: ":")); digits(mm, 2)
        out.append(UInt8(ascii: ":")); digits(ss, 2); out.append(UInt8(ascii: ".")); digits(ms, 3); out.append(UInt8(ascii: "Z"))
        return out
    }

    @Test func bytesMatchTheLoopItReplaced() {
        // Epoch, the year 0, leap days, ends of days and years, years past 9999 (last four digits),
        // and a spread of instants from year 0 to 99999.
        var instants: [Int64] = [0, -1, 1, 999, 1000, 86_399_999, 951_782_400_000, 1_714_554_000_120,
                                 253_402_300_799_999, 253_402_300_800_000, -62_167_219_200_000, 3_000_000_000_000_000]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            instants.append(Int64(state >> 11) % 3_093_527_980_800_000 - 62_167_219_200_000)
        }
        var prefix: [UInt8] = [1, 2, 3]
        for ms in instants {
            var out = prefix
            Timestamp.append(milliseconds: ms, to: &out)
            #expect(out == prefix + reference(ms), "\(ms)")
            prefix = Array(out.suffix(3))
        }
    }
}
