import TableProtocol

/// Answers that show the remote URL points at something other than a table server: a web page,
/// a redirect, JSON that is no table answer (issue 19 item 4). Each becomes one sentence that
/// says what came back and what to set instead, never the page itself.
///
/// Redirects are not followed, not even http to https on the same host: a table client that
/// silently follows would resend writes (a 301/302 may turn a POST into a GET) and carry the app
/// key and token to wherever the server points. Like a wrong URL, a redirect is for the user to
/// settle once, with `todo remote set`.
extension TableClient {
    /// The stop for an answer that cannot come from the table protocol, or nil for a table answer
    /// (whatever its status).
    public func foreignAnswer(_ reply: TableReply) -> SyncStop? {
        if (300...399).contains(reply.status) { return redirect(reply) }
        // 500, 502, 503 and 504 pages come from a proxy whose table server is down or busy: those
        // are retried and reported as the server's trouble, not as a wrong URL.
        if ![500, 502, 503, 504].contains(reply.status), let type = reply.webPageType { return webPage(reply, type: type) }
        return nil
    }

    /// The stop for a 2xx JSON answer that is not what the call returns (a list of rows, a row).
    public func notATableAnswer(_ reply: TableReply, expected: String) -> SyncStop {
        SyncStop(.wrongURL, status: reply.status,
                 message: "\(remoteName) answered \(reply.status) with JSON that is not \(expected), not the table protocol: "
                     + "check the URL (it should be the table server's base URL, \(example))")
    }

    private func redirect(_ reply: TableReply) -> SyncStop {
        guard let location = reply.location.map({ absolute($0) }) else {
            return SyncStop(.wrongURL, status: reply.status,
                            message: "\(remoteName) answered a redirect (\(reply.status)) without saying where to: check the URL (it should be the table server's base URL, \(example))")
        }
        return SyncStop(.wrongURL, status: reply.status,
                        message: "\(remoteName) redirects to \(location): set that URL with 'todo remote set \(Self.baseURL(of: location))'")
    }

    private func webPage(_ reply: TableReply, type: String) -> SyncStop {
        SyncStop(.wrongURL, status: reply.status,
                 message: "\(remoteName) answered with a web page (\(type), status \(reply.status)), not the table protocol: "
                     + "check the URL (it should be the table server's base URL, \(example))")
    }

    private var remoteName: String { endpoint?.displayURL ?? "the remote" }

    private var example: String {
        guard let endpoint else { return "e.g. http://host:8080" }
        return "e.g. \(endpoint.scheme.rawValue)://\(endpoint.hostInURL):8080"
    }

    /// A `Location` made absolute against the remote (it may be a path only).
    private func absolute(_ location: String) -> String {
        let text = location.trimmingSpaces
        guard text.hasPrefix("/"), !text.hasPrefix("//"), let endpoint else { return text }
        return "\(endpoint.scheme.rawValue)://\(endpoint.hostHeader)\(text)"
    }

    /// The remote URL a redirect target stands for: without the query and from `/tables/` on.
    static func baseURL(of location: String) -> String {
        var base = String(location.prefix { $0 != "?" && $0 != "#" })
        var parts = base.split(separator: "/", omittingEmptySubsequences: false)
        // Past "scheme:", "" and the authority: a path segment "tables" and all after it go.
        if parts.count > 3, let tables = parts[3...].firstIndex(of: "tables") {
            parts.removeSubrange(tables...)
            base = parts.joined(separator: "/")
        }
        while base.hasSuffix("/") { base.removeLast() }
        return base
    }
}

extension TableReply {
    /// The media type of an HTML answer (by `Content-Type`, or by its first byte when that is
    /// missing), or nil.
    var webPageType: String? {
        if let type = headers["Content-Type"]?.lowercased() {
            let media = String(type.prefix { $0 != ";" }).trimmingSpaces
            return media == "text/html" || media == "application/xhtml+xml" ? media : nil
        }
        if case .string(let text)? = body, text.hasPrefix("<") { return "text/html" }
        return nil
    }
}
