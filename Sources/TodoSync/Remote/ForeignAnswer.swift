import TableProtocol

/// Answers that show the remote URL points at something other than a table server: a web page,
/// a redirect, JSON that is no table answer (issue 19 item 4). Each becomes a `WrongURL` stop
/// that says what came back (the command line words it, with what to set instead), never the page itself.
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

    /// The stop for a 2xx JSON answer that is not the list of rows the call returns.
    public func notATableAnswer(_ reply: TableReply) -> SyncStop {
        SyncStop(.wrongURL(.otherJSON(status: reply.status), remote: endpoint))
    }

    private func redirect(_ reply: TableReply) -> SyncStop {
        guard let location = reply.location.map({ absolute($0) }) else {
            return SyncStop(.wrongURL(.redirectNowhere(status: reply.status), remote: endpoint))
        }
        return SyncStop(.wrongURL(.redirect(status: reply.status, location: location, remoteURL: Self.baseURL(of: location)),
                                  remote: endpoint))
    }

    private func webPage(_ reply: TableReply, type: String) -> SyncStop {
        SyncStop(.wrongURL(.webPage(status: reply.status, mediaType: type), remote: endpoint))
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
        if let media = parsedHeaders.mediaType {
            return media == "text/html" || media == "application/xhtml+xml" ? media : nil
        }
        if case .string(let text)? = body, text.hasPrefix("<") { return "text/html" }
        return nil
    }
}
