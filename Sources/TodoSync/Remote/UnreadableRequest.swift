import TableProtocol

/// Tells a server's "I could not read your request as HTTP" from a refusal of the request.
///
/// Why: a 400 is a rejection (sync.md §4.7), which becomes a conflict file for the user to
/// settle. But when the server could not even parse the request line or the headers, what it
/// refused is not the request we wrote: our serializer only writes well-formed requests, so the
/// bytes were damaged or cut on the way (a proxy, a connection reused after a cut). Settling
/// that is not the user's job; it is a failure of the connection, retried like one.
///
/// How, without reading messages (protocol §3.5: clients must not parse them): a server answers
/// malformed HTTP with 400 and closes the connection (protocol §3.3; Node, Kestrel and IIS do the
/// same), while a 400 about a request it did read keeps the connection open unless the client
/// asked to close it. So a 400 that carries `Connection: close` to a request that did not ask
/// for it is unreadable bytes. A server that closes after every answer (one that is shutting
/// down) then costs a retry, never a conflict made by mistake.
public enum UnreadableRequest {
    /// The failure `reply` stands for, or nil when it is an answer to `request`.
    public static func failure(in reply: TableReply, to request: HTTPRequest) -> TransportFailure? {
        guard reply.status == 400, request.keepAlive,
              reply.headers.containsToken("close", forName: "Connection") else { return nil }
        return .unreadableRequest(status: reply.status, message: reply.message)
    }
}
