/// Ids as an input: live ids are random UUID v4; tests use a seeded sequence.
public struct IDGenerator: Sendable {
    public var next: @Sendable () -> String

    public init(next: @escaping @Sendable () -> String) {
        self.next = next
    }

    /// Lower-case UUID v4 from the system's random source (sync.md §3.1).
    public static let live = IDGenerator {
        var rng = SystemRandomNumberGenerator()
        return uuid(rng.next(), rng.next())
    }

    /// A repeatable sequence of UUID v4 values for tests (SplitMix64 from `seed`).
    public static func seeded(_ seed: UInt64) -> IDGenerator {
        let state = SeedBox(seed)
        return IDGenerator {
            let (a, b) = state.nextPair()
            return uuid(a, b)
        }
    }

    static func uuid(_ a: UInt64, _ b: UInt64) -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<8 {
            bytes[i] = UInt8(truncatingIfNeeded: a >> UInt64(56 - 8 * i))
            bytes[8 + i] = UInt8(truncatingIfNeeded: b >> UInt64(56 - 8 * i))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for (i, byte) in bytes.enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { out.append(UInt8(ascii: "-")) }
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

import Synchronization

/// SplitMix64: a small, well-mixed, seedable generator for repeatable tests.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

private final class SeedBox: Sendable {
    private let rng: Mutex<SplitMix64>
    init(_ seed: UInt64) { rng = Mutex(SplitMix64(seed: seed)) }
    func nextPair() -> (UInt64, UInt64) { rng.withLock { ($0.next(), $0.next()) } }
}
