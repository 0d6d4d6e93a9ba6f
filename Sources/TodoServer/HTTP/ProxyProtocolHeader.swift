#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The PROXY protocol header (haproxy's `proxy-protocol.txt`, versions 1 and 2) that a TCP proxy,
/// such as nginx's stream module with `proxy_protocol on;`, sends before the client's bytes: it
/// names the client, whom the server would otherwise only know as the proxy (`--proxy-protocol`).
///
/// Parsed from all the bytes received so far, again each time more arrive: a header is at most
/// 107 bytes (v1) or `v2MaxBytes`, so starting over costs nothing and keeps no state. Input that
/// cannot begin a header is refused as soon as its first wrong byte is in, so a client that sends
/// plain HTTP is told at once, not after a timeout.
enum ProxyProtocolHeader {
    enum Outcome: Equatable {
        /// Too few bytes yet to decide.
        case needMore
        /// A valid header of `length` bytes. `source` is the client; nil when the header says the
        /// connection is the proxy's own (v1 `UNKNOWN`, v2 `LOCAL`, or an unspecified or unix
        /// address family): then the TCP peer stands for the client.
        case header(length: Int, source: PeerAddress?)
        /// Not a valid header: why, for the log and the 400.
        case invalid(String)
    }

    static let v1Prefix = Array("PROXY ".utf8)
    /// The whole v1 line, CRLF included, is at most this long (the spec's own limit).
    static let v1MaxBytes = 107
    static let v2Signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]
    /// v2 allows 16 + 65,535 bytes; real ones are 28 (IPv4) or 52 (IPv6) bytes plus a few TLVs.
    /// A longer one is refused rather than buffered.
    static let v2MaxBytes = 4096

    static func parse(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        let v1Start = bytes.prefix(v1Prefix.count), v2Start = bytes.prefix(v2Signature.count)
        if v1Start.elementsEqual(v1Prefix.prefix(v1Start.count)) { return v1Start.count < v1Prefix.count ? .needMore : parseV1(bytes) }
        if v2Start.elementsEqual(v2Signature.prefix(v2Start.count)) { return v2Start.count < v2Signature.count ? .needMore : parseV2(bytes) }
        return .invalid("it starts neither with \"PROXY \" (version 1) nor with the version 2 signature")
    }

    // MARK: - Version 1: `PROXY TCP4 203.0.113.9 127.0.0.1 51234 443\r\n`

    private static func parseV1(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        var end = v1Prefix.count
        while end < bytes.count && bytes[end] != UInt8(ascii: "\r") {
            guard (0x20...0x7E).contains(bytes[end]) else { return .invalid("its version 1 line holds a byte that is not printable ASCII") }
            end += 1
        }
        guard end + 2 <= v1MaxBytes else { return .invalid("its version 1 line is longer than \(v1MaxBytes) bytes") }
        guard end + 1 < bytes.count else { return .needMore }
        guard bytes[end + 1] == UInt8(ascii: "\n") else { return .invalid("its version 1 line does not end with CRLF") }
        let line = String(decoding: bytes[v1Prefix.count..<end], as: UTF8.self)
        let fields = line.split(separator: " ", omittingEmptySubsequences: false)
        let length = end + 2
        switch fields.first {
        case "UNKNOWN":
            return .header(length: length, source: nil)  // the rest of the line is to be ignored
        case "TCP4", "TCP6":
            guard fields.count == 5 else {
                return .invalid("its version 1 line must be: PROXY \(fields[0]) SOURCE DESTINATION SOURCE-PORT DESTINATION-PORT")
            }
            let family = fields[0] == "TCP4" ? AF_INET : AF_INET6
            guard let source = address(fields[1], family: family), address(fields[2], family: family) != nil else {
                return .invalid("its version 1 line has an address that is not \(fields[0] == "TCP4" ? "IPv4" : "IPv6")")
            }
            guard isPort(fields[3]), isPort(fields[4]) else { return .invalid("its version 1 line has a port that is not 0 to 65535") }
            return .header(length: length, source: source)
        default:
            return .invalid("its version 1 line names no protocol it knows (TCP4, TCP6 or UNKNOWN)")
        }
    }

    private static func address(_ text: Substring, family: Int32) -> PeerAddress? {
        if family == AF_INET { return ClientAddress.parse(text).map { PeerAddress(ipv4: $0) } }
        guard text.count <= 45 else { return nil }
        var raw = in6_addr()
        guard inet_pton(AF_INET6, String(text), &raw) == 1 else { return nil }
        return withUnsafeBytes(of: raw) { ipv6($0) }
    }

    private static func isPort(_ text: Substring) -> Bool {
        (1...5).contains(text.count) && text.utf8.allSatisfy { (0x30...0x39).contains($0) } && Int(text)! <= 65535
    }

    // MARK: - Version 2: signature, version and command, family, length, addresses, TLVs

    private static func parseV2(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        guard bytes.count >= 16 else { return .needMore }
        let version = bytes[12] >> 4, command = bytes[12] & 0x0F
        let family = bytes[13] >> 4, transport = bytes[13] & 0x0F
        guard version == 2 else { return .invalid("its version is \(version), not 2") }
        guard command <= 1 else { return .invalid("its version 2 command is \(command), neither LOCAL (0) nor PROXY (1)") }
        guard family <= 3, transport <= 2 else { return .invalid("its version 2 address family or transport is unknown") }
        let length = 16 + (Int(bytes[14]) << 8 | Int(bytes[15]))
        guard length <= v2MaxBytes else { return .invalid("it is \(length) bytes long, more than the \(v2MaxBytes) accepted") }
        guard bytes.count >= length else { return .needMore }
        guard command == 1 else { return .header(length: length, source: nil) }  // LOCAL: the proxy's own connection
        switch family {
        case 1:  // AF_INET: source, destination (4 bytes each), ports
            guard length >= 16 + 12 else { return .invalid("its version 2 IPv4 addresses are cut short") }
            let source = bytes[16..<20].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            return .header(length: length, source: PeerAddress(ipv4: source))
        case 2:  // AF_INET6: 16 bytes each, ports
            guard length >= 16 + 36 else { return .invalid("its version 2 IPv6 addresses are cut short") }
            return .header(length: length, source: ipv6(UnsafeRawBufferPointer(rebasing: bytes[16..<32])))
        default:  // unspecified, unix: no client address to name
            return .header(length: length, source: nil)
        }
    }

    /// The canonical text of 16 bytes of IPv6 address (`2001:db8::1`).
    private static func ipv6(_ raw: UnsafeRawBufferPointer) -> PeerAddress? {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, raw.baseAddress, &text, socklen_t(text.count)) != nil else { return nil }
        return PeerAddress(text: String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), ipv4: nil)
    }

    /// The received bytes for a log line: printable ASCII as it is, anything else escaped (so a
    /// client cannot forge log lines), at most `limit` bytes.
    static func excerpt(_ bytes: UnsafeRawBufferPointer, limit: Int = 48) -> String {
        var text = "\""
        for byte in bytes.prefix(limit) {
            switch byte {
            case UInt8(ascii: "\r"): text += "\\r"
            case UInt8(ascii: "\n"): text += "\\n"
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): text += "\\" + String(UnicodeScalar(byte))
            case 0x20...0x7E: text.unicodeScalars.append(UnicodeScalar(byte))
            default: text += "\\x" + (byte < 16 ? "0" : "") + String(byte, radix: 16)
            }
        }
        return text + (bytes.count > limit ? "\"…" : "\"")
    }
}
