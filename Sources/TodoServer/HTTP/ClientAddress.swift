/// The client address a request log line shows (issue 20 item 4).
///
/// Behind a reverse proxy every connection comes from the proxy, so the client is in
/// `X-Forwarded-For`. That header is only believed when the connection's peer is a proxy named
/// with `--trusted-proxy`: anyone else could write any address into it. The client is then the
/// rightmost address in the header that is not itself a trusted proxy (each proxy appends the
/// address it saw; entries to the left of that one came from the client and prove nothing).
enum ClientAddress {
    /// The address to log for a request that came over a connection from `peer` (IPv4, host
    /// byte order).
    static func of(forwardedFor: String?, peer: UInt32, trusted: [UInt32]) -> String {
        of(forwardedFor: forwardedFor, peer: PeerAddress(ipv4: peer), trusted: trusted)
    }

    /// The same for a connection whose client is `peer`: its TCP peer, or the source its PROXY
    /// protocol header named (`--proxy-protocol`), which is believed like a TCP peer.
    static func of(forwardedFor: String?, peer: PeerAddress, trusted: [UInt32]) -> String {
        guard let ipv4 = peer.ipv4, trusted.contains(ipv4), let forwardedFor else { return peer.text }
        let hops = forwardedFor.split(separator: ",").map { $0.trimmingSpaces }
        for hop in hops.reversed() {
            if let address = parse(hop), trusted.contains(address) { continue }
            return loggable(hop)
        }
        return hops.first.map(loggable) ?? peer.text
    }

    /// `a.b.c.d` for an IPv4 address in host byte order.
    static func text(_ address: UInt32) -> String {
        "\(address >> 24).\(address >> 16 & 0xFF).\(address >> 8 & 0xFF).\(address & 0xFF)"
    }

    /// An IPv4 literal as an address in host byte order, or nil.
    static func parse(_ literal: some StringProtocol) -> UInt32? {
        let parts = literal.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var address: UInt32 = 0
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCIIDigit), let byte = UInt32(part), byte < 256 else { return nil }
            address = address << 8 | byte
        }
        return address
    }

    /// A header value goes into a log line only as an address could look (IPv4, IPv6, a port):
    /// anything else, a newline above all, would let a client forge log lines.
    private static func loggable(_ hop: String) -> String {
        let allowed = hop.count <= 64 && !hop.isEmpty && hop.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isASCIIHexDigit || $0 == "." || $0 == ":" || $0 == "[" || $0 == "]")
        }
        return allowed ? hop : "-"
    }
}

/// Who is at the other end of a connection, for the request log: the TCP peer, or the client a
/// PROXY protocol header named (`ProxyProtocolHeader`), which may be IPv6.
struct PeerAddress: Equatable, Sendable {
    /// As the log shows it: `a.b.c.d`, or canonical IPv6 text.
    let text: String
    /// Host byte order; nil for IPv6 (never a `--trusted-proxy`).
    let ipv4: UInt32?

    init(text: String, ipv4: UInt32?) {
        self.text = text
        self.ipv4 = ipv4
    }

    init(ipv4: UInt32) {
        self.init(text: ClientAddress.text(ipv4), ipv4: ipv4)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
