import TableProtocol

/// An application's answer to one request: the response, what must be durable before it may be
/// sent, and the response to send instead if that fails.
///
/// Why both responses up front: the application knows the form of its errors (the generation's
/// JSON, its headers), the socket layer knows when answers go out. The socket layer settles the
/// tickets of the answers it writes together (`DurabilityTicket.settle`, one wait per table log),
/// then picks one of the two responses for each answer, before serializing any: nothing is
/// rewritten after it was built (issue 16 item 4).
public struct HTTPAnswer: Sendable {
    /// What to send once `ticket` holds.
    public let response: HTTPResponse
    /// What must be durable first: what the response reports or shows.
    public let ticket: DurabilityTicket
    /// What to send instead when `ticket` fails (an fsync of a log it needs failed).
    private let ifNotDurable: @Sendable (StorageError) -> HTTPResponse

    public init(_ response: HTTPResponse, ticket: DurabilityTicket,
                ifNotDurable: @escaping @Sendable (StorageError) -> HTTPResponse) {
        self.response = response
        self.ticket = ticket
        self.ifNotDurable = ifNotDurable
    }

    /// An answer that waits for nothing (answers of servers that commit before they answer,
    /// errors found before the application ran). Its ticket cannot fail.
    public static func durable(_ response: HTTPResponse) -> HTTPAnswer {
        HTTPAnswer(response, ticket: .durable, ifNotDurable: { _ in response })
    }

    /// The response to send, given how its ticket settled (`failure` nil: it holds).
    public func response(settled failure: StorageError?) -> HTTPResponse {
        guard let failure else { return response }
        return ifNotDurable(failure)
    }

    /// Waits for this answer's ticket alone, then gives the response to send (one request at a
    /// time: tools, tests, in-process callers).
    public func settled() -> HTTPResponse {
        response(settled: DurabilityTicket.settle([ticket])[0])
    }
}
