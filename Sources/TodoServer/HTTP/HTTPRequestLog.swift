/// The one log line per request: `GET /tables/x 200 0.4ms`.
///
/// Only the path is logged, not the query: queries can be 16 KiB of `$filter` and may carry
/// values a user would rather not see in a log. Requests that never became requests (malformed
/// input, timeouts) log `-` for method and path.
enum HTTPRequestLog {
    static let maxPathCharacters = 200

    /// `client`: the address `ClientAddress` decided, first as in common web server logs.
    static func line(client: String, method: String?, target: String?, status: Int, elapsed: Duration) -> String {
        "\(client) \(method ?? "-") \(target.map(path(of:)) ?? "-") \(status) \(milliseconds(elapsed))ms"
    }

    /// The target up to `?`, shortened to a readable length.
    static func path(of target: String) -> String {
        let path = target.utf8.firstIndex(of: UInt8(ascii: "?")).map { target[..<$0] } ?? target[...]
        guard path.count > maxPathCharacters else { return String(path) }
        return String(path.prefix(maxPathCharacters)) + "…"
    }

    /// Milliseconds with one decimal, e.g. `0.4`, `12.0`, `1500.3`; no Foundation formatter needed.
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let tenths = max(0, seconds * 10_000 + (attoseconds + 50_000_000_000_000) / 100_000_000_000_000)
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// A duration for people: `200 ms`, `30 s`.
    static func readable(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        if attoseconds == 0 { return "\(seconds) s" }
        return "\(seconds * 1000 + attoseconds / 1_000_000_000_000_000) ms"
    }
}
