#if canImport(Glibc)
import Glibc
#endif
import TodoBasics

/// The bearer tokens of `X-ZUMO-AUTH`: 32 bytes from /dev/urandom, written as 64 hex digits.
///
/// Only a digest is stored: SHA-256 over a fixed label and the token. No per-user salt, on
/// purpose: a salt protects guessable secrets (passwords) from precomputed tables and makes equal
/// passwords differ, and a token is 256 random bits, neither guessable nor ever equal to another.
/// An unsalted digest lets the server hash a presented token once and compare it with every
/// user's digest, in constant time (`sameDigest`), instead of hashing once per user.
public enum UserToken {
    static let byteCount = 32
    /// Domain separation: these digests are of tokens, not of anything else hashed elsewhere.
    static let label = Array("todo-server user token v1\n".utf8)

    struct RandomUnavailable: Error, CustomStringConvertible {
        var reason: String
        var description: String { "cannot read /dev/urandom: \(reason)" }
    }

    /// A fresh token.
    static func make() throws(RandomUnavailable) -> String {
        hex(try randomBytes(byteCount))
    }

    /// The stored form of `token`.
    static func digest(_ token: String) -> [UInt8] { SHA256.hash(label + Array(token.utf8)) }

    /// Equal digests, in time that depends only on their lengths, never on where they differ.
    static func sameDigest(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<a.count { difference |= a[i] ^ b[i] }
        return difference == 0
    }

    static func randomBytes(_ count: Int) throws(RandomUnavailable) -> [UInt8] {
        let fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw RandomUnavailable(reason: errnoText(errno)) }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, count - filled) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw RandomUnavailable(reason: n == 0 ? "end of file" : errnoText(errno)) }
            filled += n
        }
        return bytes
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0xf)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Nil unless `text` is an even number of lower- or upper-case hex digits.
    static func bytes(hex text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: c - 48
            case 97...102: c - 87
            case 65...70: c - 55
            default: nil
            }
        }
        var out: [UInt8] = []
        for i in stride(from: 0, to: chars.count, by: 2) {
            guard let hi = nibble(chars[i]), let lo = nibble(chars[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
        }
        return out
    }
}
