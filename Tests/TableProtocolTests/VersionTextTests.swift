import Testing
import TableProtocol

/// `VersionText.encode` writes its 12 characters straight into the string; they must stay those of
/// the base64 of the big-endian counter padded with a zero byte, as built before (the reference).
@Suite struct VersionTextTests {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    private func reference(_ version: UInt64) -> String {
        var bytes: [UInt8] = []
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: version >> UInt64(shift))) }
        bytes.append(0)
        var out: [UInt8] = []
        for i in stride(from: 0, to: 9, by: 3) {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out += [Self.alphabet[Int(n >> 18 & 63)], Self.alphabet[Int(n >> 12 & 63)],
                    Self.alphabet[Int(n >> 6 & 63)], Self.alphabet[Int(n & 63)]]
        }
        out[11] = UInt8(ascii: "=")
        return String(decoding: out, as: UTF8.self)
    }

    @Test func textMatchesTheBase64ItReplacedAndDecodes() {
        var versions: [UInt64] = [0, 1, 2001, 63, 64, UInt64.max, UInt64.max - 1, 1 << 63, 0x0102_0304_0506_0708]
        for bit in 0..<64 { versions.append(1 << UInt64(bit)); versions.append((1 << UInt64(bit)) - 1) }
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        for _ in 0..<10_000 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            versions.append(state)
        }
        #expect(VersionText.encode(2001) == "AAAAAAAAB9E=")  // protocol §4.4.2
        for v in versions {
            let text = VersionText.encode(v)
            #expect(text == reference(v), "\(v)")
            #expect(Array(text.utf8) == Array(reference(v).utf8))
            #expect(VersionText.decode(text) == v)
        }
    }
}
